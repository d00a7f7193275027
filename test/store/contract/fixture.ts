import { afterEach } from 'vitest';
import type { AgentAction } from '../../../src/actions/types.js';
import type { Store } from '../../../src/store/port.js';
import { agentAcceptance, wakeAcceptance } from '../helpers.js';
import type { ContractFactory, ContractStore } from './index.js';

/**
 * Per-test stores of a contract block: `open()` makes one (closed after the test with every sibling
 * it opened). Data is put in through the port only, as the service does.
 */
export function contractStores(makeStore: ContractFactory): {
  open: () => Promise<ContractStore & { siblings: Store[] }>;
} {
  const opened: Array<{ close: () => Promise<void>; siblings: Store[] }> = [];
  afterEach(async () => {
    for (const entry of opened.splice(0).reverse()) {
      for (const sibling of entry.siblings) await sibling.close();
      await entry.close();
    }
  });
  return {
    async open() {
      const made = await makeStore();
      const entry = { ...made, siblings: [] as Store[] };
      if (made.sibling !== undefined) {
        const open = made.sibling;
        entry.sibling = async (options) => {
          const sibling = await open(options);
          entry.siblings.push(sibling);
          return sibling;
        };
      }
      opened.push(entry);
      return entry;
    },
  };
}

/** Queues one agent run through the ingress, as a request would; its action back. */
export async function queueRun(store: Store, message = 'run it'): Promise<AgentAction> {
  const acceptance = agentAcceptance(message);
  await store.ingress.accept(acceptance);
  return acceptance.actions[0] as AgentAction;
}

/** Adds one pending wake event through the ingress. */
export async function queueWake(store: Store, text: string): Promise<void> {
  await store.ingress.accept(wakeAcceptance(text));
}

export const NOW = Date.UTC(2026, 0, 1);
