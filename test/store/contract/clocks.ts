import { describe, expect, it } from 'vitest';
import type { DebounceJoin } from '../../../src/store/debounce-port.js';
import type { RunGates, Store } from '../../../src/store/port.js';
import { agent } from '../helpers.js';
import { contractStores, queueRun } from './fixture.js';
import type { ContractFactory } from './index.js';

/** How far apart the two instances' own clocks are, and the windows and leases the case uses (shorter). */
const SKEW_MS = 5000;
const SPAN_MS = 4000;

function joinOf(message: string): DebounceJoin {
  return { mappingId: 'm', key: 'k', action: agent(message), windowMs: SPAN_MS, maxWaitMs: 10 * SPAN_MS, keep: 'last', maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 };
}

/**
 * Instances sharing a database go by one time (Store.now), whatever their own clocks say: a
 * window, a bucket or a lease written by one is read the same by the other (docs/deployment.md).
 * Each instance's time is read once, at the same moment, and every step then uses it.
 */
export function describeClockContract(makeStore: ContractFactory): void {
  describe('time shared by instances', () => {
    const stores = contractStores(makeStore);

    /** Two live instances on one database, one's own clock 5 s ahead of the other's; undefined when the adapter has one process per database. */
    async function twoInstances(): Promise<{ behind: Store; ahead: Store; atBehind: number; atAhead: number } | undefined> {
      const made = await stores.open();
      if (made.sibling === undefined || made.concurrentInstances !== true) return undefined;
      const behind = await made.sibling({ localClock: () => Date.now() });
      const ahead = await made.sibling({ localClock: () => Date.now() + SKEW_MS });
      return { behind, ahead, atBehind: behind.now(), atAhead: ahead.now() };
    }

    it("fires a debounce group once, not early, and never splits it, when the two instances' own clocks differ by 5 s", async (context) => {
      const instances = await twoInstances();
      if (instances === undefined) return context.skip();
      const { behind, ahead, atBehind, atAhead } = instances;
      const opened = await behind.debounce.join({ joins: [joinOf('first')] }, atBehind);
      if (opened.kind !== 'committed') throw new Error('expected the join to commit');
      expect(await ahead.debounce.claimDue(atAhead, 'ahead', atAhead + 60_000, 10)).toEqual([]);
      const joined = await ahead.debounce.join({ joins: [joinOf('second')] }, atAhead);
      expect(joined.kind === 'committed' ? joined.groups[0] : joined).toMatchObject({ groupId: opened.groups[0]?.groupId, opened: false, deliveries: 2 });
      const firesAt = joined.kind === 'committed' ? (joined.groups[0]?.firesAt as number) : Number.NaN;
      const claims = await Promise.all([behind.debounce.claimDue(firesAt, 'behind', firesAt + 60_000, 10), ahead.debounce.claimDue(firesAt, 'ahead', firesAt + 60_000, 10)]);
      expect(claims.flat().map((group) => group.groupId)).toEqual([opened.groups[0]?.groupId]);
    });

    it('keeps a throttle and a run lease written by one instance for the other, when their own clocks differ by 5 s', async (context) => {
      const instances = await twoInstances();
      if (instances === undefined) return context.skip();
      const { behind, ahead, atBehind, atAhead } = instances;
      const throttle: RunGates = { budgets: [], recheckMs: 30_000, throttle: { bucket: 'throttle:m:k', rule: { limit: 1, periodMs: SPAN_MS } } };
      const [first, second] = [await queueRun(behind), await queueRun(behind)];
      expect(await behind.limits.claimGated(first.runId, { owner: 'behind', at: atBehind, leaseUntil: atBehind + SPAN_MS }, throttle)).toMatchObject({ kind: 'claimed' });
      expect(await ahead.limits.claimGated(second.runId, { owner: 'ahead', at: atAhead, leaseUntil: atAhead + SPAN_MS }, throttle)).toMatchObject({ kind: 'waiting', waitingFor: 'throttle' });
      // The first run's lease is still live by the shared time: the other instance does not take it over.
      expect(await ahead.runs.recoverAbandoned(atAhead, () => ({ kind: 'requeue', reason: 'taken over' }))).toEqual({ requeued: 0, finished: 0 });
      expect(await ahead.runs.view(first.runId)).toMatchObject({ status: 'running' });
    });
  });
}
