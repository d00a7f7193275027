import { describe, expect, it } from 'vitest';
import type { AgentAction, NotifyAction } from '../../../src/actions/types.js';
import type { DebounceJoin } from '../../../src/store/debounce-port.js';
import { agent, wake } from '../helpers.js';
import { notify } from '../acceptances.js';
import { contractStores, NOW } from './fixture.js';
import type { ContractFactory } from './index.js';

function joinOf(action: DebounceJoin['action'], key: string, mappingId = 'gh-pr'): DebounceJoin {
  return { mappingId, key, action, windowMs: 30_000, maxWaitMs: 300_000, keep: 'last', maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 };
}

function agentFrom(hook: string, sessionKey: string, name = 'GitHub'): AgentAction {
  return { ...agent(`from ${hook}`), name, sessionKey, origin: { hook, mappingId: 'gh-pr' } };
}

/** The groups that will become runs, listed as the run list pages runs (the console's Runs page). */
export function describePendingRunsContract(makeStore: ContractFactory): void {
  const stores = contractStores(makeStore);

  describe('pending runs (debounce groups that become runs)', () => {
    it('lists agent and notify groups newest first with their newest delivery\'s hook, name and session, never wake groups', async () => {
      const { store } = await stores.open();
      const first = await store.debounce.join({ joins: [joinOf(agentFrom('github', 'hook:github:acme/app#7'), 'acme/app#7')] }, NOW);
      // A later delivery of the same group: its name and session are the run's.
      await store.debounce.join({ joins: [joinOf(agentFrom('github', 'hook:github:acme/app#7', 'GitHub PR'), 'acme/app#7')] }, NOW + 1_000);
      const paid: NotifyAction = notify('paid');
      const second = await store.debounce.join({ joins: [joinOf(paid, 'invoices', 'payments')] }, NOW + 2_000);
      await store.debounce.join({ joins: [joinOf(wake('tick'), 'ticks', 'ticks')] }, NOW + 3_000);
      if (first.kind !== 'committed' || second.kind !== 'committed') throw new Error('expected commits');

      const { runs, next } = await store.debounce.listPendingRuns({ limit: 10 });
      expect(next).toBeUndefined();
      expect(runs).toEqual([
        { groupId: second.groups[0]?.groupId, mappingId: 'payments', kind: 'notify', status: 'open', hook: 'stripe', name: 'stripe', sessionKey: '', deliveries: 1, createdAt: NOW + 2_000, firesAt: NOW + 32_000 },
        { groupId: first.groups[0]?.groupId, mappingId: 'gh-pr', kind: 'agent', status: 'open', hook: 'github', name: 'GitHub PR', sessionKey: 'hook:github:acme/app#7', deliveries: 2, createdAt: NOW, firesAt: NOW + 31_000 },
      ]);
    });

    it('filters by hook and session key and pages with a cursor; a group that fired is gone from the list', async () => {
      const { store } = await stores.open();
      const ids: string[] = [];
      for (let n = 0; n < 5; n += 1) {
        const hook = n % 2 === 0 ? 'github' : 'gitlab';
        const joined = await store.debounce.join({ joins: [joinOf(agentFrom(hook, `hook:${hook}:${n}`), `k${n}`)] }, NOW + n * 1_000);
        if (joined.kind !== 'committed') throw new Error('expected a commit');
        ids.push(joined.groups[0]?.groupId as string);
      }
      const page1 = await store.debounce.listPendingRuns({ limit: 2 });
      expect(page1.runs.map((run) => run.groupId)).toEqual([ids[4], ids[3]]);
      expect(page1.next).toBe(ids[3]);
      const page2 = await store.debounce.listPendingRuns({ limit: 2, before: page1.next as string });
      expect(page2.runs.map((run) => run.groupId)).toEqual([ids[2], ids[1]]);
      const page3 = await store.debounce.listPendingRuns({ limit: 2, before: page2.next as string });
      expect(page3).toEqual({ runs: [expect.objectContaining({ groupId: ids[0] })] });

      expect((await store.debounce.listPendingRuns({ limit: 10, hook: 'gitlab' })).runs.map((run) => run.groupId)).toEqual([ids[3], ids[1]]);
      expect((await store.debounce.listPendingRuns({ limit: 10, sessionKey: 'hook:github:2' })).runs.map((run) => run.groupId)).toEqual([ids[2]]);

      const due = await store.debounce.claimDue(NOW + 30_000, 'firer', NOW + 90_000, 1);
      expect(due.map((group) => group.groupId)).toEqual([ids[0]]);
      expect((await store.debounce.listPendingRuns({ limit: 10 })).runs.find((run) => run.groupId === ids[0])).toMatchObject({ status: 'firing' });
      await store.debounce.fired(ids[0] as string, 'firer');
      expect((await store.debounce.listPendingRuns({ limit: 10 })).runs.map((run) => run.groupId)).toEqual([ids[4], ids[3], ids[2], ids[1]]);
      // A cursor whose group fired meanwhile ends the list, as a run list's unknown cursor does.
      expect(await store.debounce.listPendingRuns({ limit: 10, before: ids[0] as string })).toEqual({ runs: [] });
    });
  });
}
