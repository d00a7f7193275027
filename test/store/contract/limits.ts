import { describe, expect, it } from 'vitest';
import type { RunClaim, RunGates, Store } from '../../../src/store/port.js';
import { NOW, contractStores, queueRun } from './fixture.js';
import type { ContractFactory } from './index.js';

const HOUR = 3_600_000;
const claimAt = (at: number, owner = 'instance-a'): RunClaim => ({ owner, at, leaseUntil: at + 60_000 });
const gates = (extra: Partial<RunGates> = {}): RunGates => ({ budgets: [], recheckMs: 30_000, ...extra });

/** Rate buckets, gated claims (throttle, concurrency, budget, circuit), forced starts: the store's share of docs/run-limits.md. */
export function describeLimitsContract(makeStore: ContractFactory): void {
  describe('limits', () => {
    const stores = contractStores(makeStore);

    it('admits `limit` hits of a rate bucket per period, then refuses with the time until the next would conform', async () => {
      const { store } = await stores.open();
      const rule = { limit: 3, periodMs: 60_000 };
      const verdicts = [];
      for (let i = 0; i < 4; i += 1) verdicts.push(await store.limits.rateHit('rate:m:k', rule, NOW));
      expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
      expect(verdicts[3]?.retryAfterMs).toBe(20_000);
      expect(await store.limits.rateHit('rate:m:other', rule, NOW)).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await store.limits.rateHit('rate:m:k', rule, NOW + 20_000, true)).toEqual({ allowed: true, retryAfterMs: 0 });
      expect((await store.limits.rateHit('rate:m:k', rule, NOW + 19_999)).allowed).toBe(false);
      expect((await store.limits.rateHit('rate:m:k', rule, NOW + 20_000)).allowed).toBe(true);
    });

    it('admits exactly `limit` of many hits arriving together from two instances', async () => {
      const made = await stores.open();
      if (made.sibling === undefined) throw new Error('the limits contract needs a sibling store');
      const other = await made.sibling();
      const rule = { limit: 3, periodMs: 60_000 };
      const verdicts = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? made.store : other).limits.rateHit('rate:m:together', rule, NOW)));
      expect(verdicts.filter((verdict) => verdict.allowed)).toHaveLength(3);
    });

    it('spaces throttled starts of one key and records the wait on the run', async () => {
      const { store } = await stores.open();
      const [first, second] = [await queueRun(store), await queueRun(store)];
      const throttle = gates({ throttle: { bucket: 'throttle:m:k', rule: { limit: 1, periodMs: 2000 } } });
      expect(await store.limits.claimGated(first.runId, claimAt(NOW), throttle)).toEqual({ kind: 'claimed', probe: false });
      expect(await store.limits.claimGated(second.runId, claimAt(NOW + 1000), throttle)).toEqual({ kind: 'waiting', waitingFor: 'throttle', notBefore: NOW + 2000 });
      expect(await store.runs.view(second.runId)).toMatchObject({ status: 'queued', waitingFor: 'throttle', notBefore: new Date(NOW + 2000).toISOString() });
      expect(await store.limits.nextNotBefore()).toBe(NOW + 2000);
      expect((await store.runs.listQueued(10, NOW + 1999)).map((row) => row.run_id)).toEqual([]);
      expect((await store.runs.listQueued(10, NOW + 2000)).map((row) => row.run_id)).toEqual([second.runId]);
      expect(await store.limits.claimGated(second.runId, claimAt(NOW + 2000), throttle)).toMatchObject({ kind: 'claimed' });
      expect(await store.limits.claimGated(second.runId, claimAt(NOW + 2000), throttle)).toEqual({ kind: 'taken' });
    });

    it('lets exactly one of two instances take the last slot of a concurrency key', async () => {
      const made = await stores.open();
      if (made.sibling === undefined) throw new Error('the limits contract needs a sibling store');
      const other: Store = await made.sibling();
      const runs = [await queueRun(made.store), await queueRun(made.store), await queueRun(made.store)];
      const keyed = gates({ concurrency: { key: 'm:a', limit: 1 } });
      const outcomes = await Promise.all([
        made.store.limits.claimGated((runs[0] as { runId: string }).runId, claimAt(NOW, 'a'), keyed),
        other.limits.claimGated((runs[1] as { runId: string }).runId, claimAt(NOW, 'b'), keyed),
      ]);
      expect(outcomes.filter((o) => o.kind === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'waiting' && o.waitingFor === 'concurrency')).toHaveLength(1);
      const otherKey = gates({ concurrency: { key: 'm:b', limit: 1 } });
      expect(await other.limits.claimGated((runs[2] as { runId: string }).runId, claimAt(NOW, 'b'), otherKey)).toMatchObject({ kind: 'claimed' });
      const winner = outcomes[0]?.kind === 'claimed' ? runs[0] : runs[1];
      const waiter = outcomes[0]?.kind === 'claimed' ? runs[1] : runs[0];
      await made.store.runs.finish((winner as { runId: string }).runId, { status: 'ok', at: NOW + 5, summary: 'done' });
      await made.store.limits.wakeWaiting('concurrency', 'm:a');
      expect((await other.runs.listQueued(10, NOW + 5)).map((row) => row.run_id)).toEqual([(waiter as { runId: string }).runId]);
      expect(await other.limits.claimGated((waiter as { runId: string }).runId, claimAt(NOW + 5, 'b'), keyed)).toMatchObject({ kind: 'claimed' });
    });

    it('counts budget starts in the database: the next process still sees them, and a forced run passes', async () => {
      const made = await stores.open();
      if (made.sibling === undefined) throw new Error('the limits contract needs a sibling store');
      const budget = gates({ budgets: [{ scope: 'service', runsPerHour: 2 }] });
      const runs = [await queueRun(made.store), await queueRun(made.store), await queueRun(made.store), await queueRun(made.store)];
      const ids = runs.map((run) => run.runId);
      expect(await made.store.limits.claimGated(ids[0] as string, claimAt(NOW), budget)).toMatchObject({ kind: 'claimed' });
      expect(await made.store.limits.claimGated(ids[1] as string, claimAt(NOW + 1000), budget)).toMatchObject({ kind: 'claimed' });
      const next = await made.sibling();
      expect(await next.limits.claimGated(ids[2] as string, claimAt(NOW + 2000), budget)).toEqual({ kind: 'waiting', waitingFor: 'budget', notBefore: NOW + HOUR, scope: 'service' });
      expect(await next.limits.overview(budget.budgets, NOW + 2000)).toMatchObject({
        waiting: { budget: 1, slot: 1 },
        budgets: [{ scope: 'service', window: 'hour', limit: 2, used: 2, remaining: 0 }],
      });
      expect(await next.limits.forceStart(ids[3] as string, NOW + 2000)).toEqual({ kind: 'forced' });
      expect(await next.limits.claimGated(ids[3] as string, claimAt(NOW + 2000), budget)).toMatchObject({ kind: 'claimed' });
      expect(await next.limits.claimGated(ids[2] as string, claimAt(NOW + HOUR), budget)).toEqual({ kind: 'waiting', waitingFor: 'budget', notBefore: NOW + 1000 + HOUR, scope: 'service' });
      expect(await next.limits.claimGated(ids[2] as string, claimAt(NOW + 2000 + HOUR), budget)).toMatchObject({ kind: 'claimed' });
    });

    it('makes every waiting run due again when the limits change, listed in the order they were queued', async () => {
      const { store } = await stores.open();
      const budget = (runsPerHour: number) => gates({ budgets: [{ scope: 'mapping:m', runsPerHour }] });
      const keyed = gates({ concurrency: { key: 'm:k', limit: 1 } });
      const [first, second, third, keyHolder, keyWaiter] = [await queueRun(store), await queueRun(store), await queueRun(store), await queueRun(store), await queueRun(store)] as const;
      expect(await store.limits.claimGated(first.runId, claimAt(NOW), budget(1))).toMatchObject({ kind: 'claimed' });
      expect(await store.limits.claimGated(second.runId, claimAt(NOW + 1), budget(1))).toMatchObject({ kind: 'waiting', waitingFor: 'budget', notBefore: NOW + HOUR });
      expect(await store.limits.claimGated(third.runId, claimAt(NOW + 2), budget(1))).toMatchObject({ kind: 'waiting', waitingFor: 'budget', notBefore: NOW + HOUR });
      expect(await store.limits.claimGated(keyHolder.runId, claimAt(NOW + 3), keyed)).toMatchObject({ kind: 'claimed' });
      expect(await store.limits.claimGated(keyWaiter.runId, claimAt(NOW + 4), keyed)).toMatchObject({ kind: 'waiting', waitingFor: 'concurrency' });
      const newer = await queueRun(store);
      expect((await store.runs.listQueued(10, NOW + 10)).map((row) => row.run_id)).toEqual([newer.runId]);

      await store.limits.wakeWaiting('any');
      expect((await store.runs.listQueued(10, NOW + 10)).map((row) => row.run_id)).toEqual([second.runId, third.runId, keyWaiter.runId, newer.runId]);
      expect(await store.runs.view(second.runId)).toMatchObject({ status: 'queued', waitingFor: 'budget' });
      expect((await store.runs.view(second.runId))?.notBefore).toBeUndefined();
      expect(await store.limits.claimGated(second.runId, claimAt(NOW + 10), budget(10))).toMatchObject({ kind: 'claimed' });
      expect(await store.limits.claimGated(keyWaiter.runId, claimAt(NOW + 10), keyed)).toMatchObject({ kind: 'waiting', waitingFor: 'concurrency' });
    });

    it('shares a provider circuit between instances: opened by one, probed once, closed by a success', async () => {
      const made = await stores.open();
      if (made.sibling === undefined) throw new Error('the limits contract needs a sibling store');
      const other = await made.sibling();
      const rule = { failures: 3, openMs: 60_000 };
      const outcomes = [];
      for (let i = 0; i < 3; i += 1) outcomes.push(await made.store.limits.recordProviderOutcome('openai', true, rule, NOW));
      expect(outcomes).toEqual([undefined, undefined, { kind: 'opened', until: NOW + 60_000, failures: 3 }]);
      const circuit = gates({ circuit: { provider: 'openai', rule } });
      const [a, b] = [await queueRun(made.store), await queueRun(made.store)];
      expect(await other.limits.claimGated(a.runId, claimAt(NOW + 10), circuit)).toEqual({ kind: 'waiting', waitingFor: 'provider-circuit', notBefore: NOW + 60_000 });
      expect(await other.limits.claimGated(a.runId, claimAt(NOW + 60_000, 'b'), circuit)).toEqual({ kind: 'claimed', probe: true });
      expect(await made.store.limits.claimGated(b.runId, claimAt(NOW + 60_001), circuit)).toMatchObject({ kind: 'waiting', waitingFor: 'provider-circuit' });
      expect(await other.limits.recordProviderOutcome('openai', true, rule, NOW + 61_000)).toEqual({ kind: 'reopened', until: NOW + 181_000, failures: 4 });
      expect(await made.store.limits.claimGated(b.runId, claimAt(NOW + 181_000), circuit)).toEqual({ kind: 'claimed', probe: true });
      expect(await made.store.limits.recordProviderOutcome('openai', false, rule, NOW + 182_000)).toEqual({ kind: 'closed' });
      expect((await other.limits.overview([], NOW + 182_000)).circuits).toEqual([{ provider: 'openai', state: 'closed', failures: 0, until: 0, openMs: 60_000, changedAt: NOW + 182_000 }]);
    });

    it('keeps one probe for as long as its run executes, past its first lease, and replaces a probe that ended without an outcome', async () => {
      const { store } = await stores.open();
      const rule = { failures: 1, openMs: 60_000 };
      expect(await store.limits.recordProviderOutcome('slow', true, rule, NOW)).toMatchObject({ kind: 'opened' });
      const circuit = gates({ circuit: { provider: 'slow', rule } });
      const [probe, second, third] = [await queueRun(store), await queueRun(store), await queueRun(store)];
      expect(await store.limits.claimGated(probe.runId, claimAt(NOW + 60_000), circuit)).toEqual({ kind: 'claimed', probe: true });
      expect(await store.limits.overview([], NOW + 60_000)).toMatchObject({ circuits: [{ provider: 'slow', state: 'probing', probeRun: probe.runId }] });
      // The model call outlives the claim's first lease (60 s); the runtime renews the lease all along.
      for (let at = NOW + 80_000; at <= NOW + 600_000; at += 20_000) {
        expect(await store.runs.renewLease(probe.runId, 'instance-a', at + 60_000)).toBe(true);
        expect(await store.limits.claimGated(second.runId, claimAt(at + 1000, 'instance-b'), circuit)).toMatchObject({ kind: 'waiting', waitingFor: 'provider-circuit' });
      }
      // Stopped mid-call: no outcome was recorded, and the next run becomes the probe.
      await store.runs.suspend(probe.runId, 'interrupted by a shutdown');
      expect(await store.limits.claimGated(second.runId, claimAt(NOW + 601_000), circuit)).toEqual({ kind: 'claimed', probe: true });
      expect(await store.limits.claimGated(third.runId, claimAt(NOW + 601_001), circuit)).toMatchObject({ kind: 'waiting', waitingFor: 'provider-circuit' });
    });

    it('replaces a probe whose instance died once its lease is past (instances sharing the database)', async (context) => {
      const made = await stores.open();
      if (made.sibling === undefined || made.concurrentInstances !== true) return context.skip();
      const other = await made.sibling();
      const rule = { failures: 1, openMs: 60_000 };
      await made.store.limits.recordProviderOutcome('slow', true, rule, NOW);
      const circuit = gates({ circuit: { provider: 'slow', rule } });
      const [probe, next] = [await queueRun(made.store), await queueRun(made.store)];
      expect(await made.store.limits.claimGated(probe.runId, claimAt(NOW + 60_000), circuit)).toEqual({ kind: 'claimed', probe: true });
      expect(await other.limits.claimGated(next.runId, claimAt(NOW + 120_000, 'instance-b'), circuit)).toMatchObject({ kind: 'waiting', waitingFor: 'provider-circuit' });
      expect(await other.limits.claimGated(next.runId, claimAt(NOW + 120_001, 'instance-b'), circuit)).toEqual({ kind: 'claimed', probe: true });
    });
  });
}
