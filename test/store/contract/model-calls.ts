import { describe, expect, it } from 'vitest';
import { notifyAcceptance } from '../acceptances.js';
import { NOW, contractStores, queueRun } from './fixture.js';
import type { ContractFactory } from './index.js';

const HOUR = 3_600_000;

/** The model calls of a window, by origin, counted from the runs' and heartbeats' start times (`hookgate status`). */
export function describeModelCallsContract(makeStore: ContractFactory): void {
  describe('model calls', () => {
    const stores = contractStores(makeStore);

    it('counts agent runs and heartbeats started since a time; a notify and older starts are not calls of the window', async () => {
      const { store } = await stores.open();
      const starts = [NOW - 2 * HOUR, NOW - HOUR, NOW - 30 * 60_000, NOW];
      for (const at of starts) {
        const run = await queueRun(store);
        expect(await store.runs.claim(run.runId, { owner: 'instance-a', at, leaseUntil: at + 60_000 })).toBe(true);
      }
      const notify = notifyAcceptance('Payment failed for cus_1');
      await store.ingress.accept(notify);
      await store.runs.claim((notify.actions[0] as { runId: string }).runId, { owner: 'instance-a', at: NOW, leaseUntil: NOW + 60_000 });
      await queueRun(store); // queued, never started: no call
      for (const at of [NOW - 3 * HOUR, NOW - 10 * 60_000]) await store.session.startHeartbeat(at, 1);

      expect(await store.modelCalls(NOW - HOUR)).toEqual({ runs: 3, heartbeats: 1 });
      expect(await store.modelCalls(NOW + 1)).toEqual({ runs: 0, heartbeats: 0 });
    });
  });
}
