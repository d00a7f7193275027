import { describe, expect, it } from 'vitest';
import type { Acceptance, RateHitRequest, Store } from '../../../src/store/port.js';
import type { DebounceJoin } from '../../../src/store/debounce-port.js';
import { agent, agentAcceptance, responseOf } from '../helpers.js';
import { contractStores, NOW } from './fixture.js';
import type { ContractFactory } from './index.js';

/** 3 per minute: GCRA books 20 s per hit, three at one instant conform, the fourth 20 s later. */
const RULE = { limit: 3, periodMs: 60_000 };

function hitAt(now: number, bucket = 'rate:sentry:p'): RateHitRequest {
  return { bucket, rule: RULE, now };
}

function limited(message: string, key?: string, now = NOW): Acceptance {
  return { ...agentAcceptance(message, key), rateHit: hitAt(now) };
}

async function queued(store: Store): Promise<number> {
  return (await store.depths()).runs.queued;
}

/**
 * A mapping's rateLimit counted in the acceptance's own transaction (src/admission/rate-limit.ts):
 * the hit and the actions commit together or not at all, on every adapter.
 */
export function describeRateAdmissionContract(makeStore: ContractFactory): void {
  describe('rate limit counted at acceptance', () => {
    const stores = contractStores(makeStore);

    it('commits an acceptance only while its hit conforms; a refused one stores nothing, not even its key', async () => {
      const { store } = await stores.open();
      const outcomes = [];
      for (let i = 0; i < 4; i += 1) outcomes.push(await store.ingress.accept(limited(`issue ${i}`, `key-${i}`)));
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['committed', 'committed', 'committed', 'rate-limited']);
      expect(outcomes[3]).toEqual({ kind: 'rate-limited', retryAfterMs: 20_000 });
      expect(await queued(store)).toBe(3);
      expect(await store.ingress.replay('key-3', 'fp:issue 3')).toBeUndefined();
      // The key was not taken: the same delivery, once the bucket has room again, commits.
      expect((await store.ingress.accept(limited('issue 3', 'key-3', NOW + 20_000))).kind).toBe('committed');
      // Another key's bucket is its own; an acceptance without a hit is never limited.
      expect((await store.ingress.accept({ ...agentAcceptance('other'), rateHit: hitAt(NOW, 'rate:sentry:q') })).kind).toBe('committed');
      expect((await store.ingress.accept(agentAcceptance('plain'))).kind).toBe('committed');
      expect(await queued(store)).toBe(6);
    });

    it('replays a retry of a committed delivery without counting it again, even with the bucket full', async () => {
      const { store } = await stores.open();
      const first = await store.ingress.accept(limited('once', 'delivery-1'));
      for (let i = 0; i < 2; i += 1) await store.ingress.accept(limited(`fill ${i}`));
      expect(await store.ingress.accept(limited('once', 'delivery-1'))).toEqual({ kind: 'replayed', response: responseOf(first) });
      expect((await store.ingress.accept(limited('one more'))).kind).toBe('rate-limited');
    });

    it('refuses, together, two acceptances of one key arriving together when the bucket is full', async () => {
      const { store } = await stores.open();
      for (let i = 0; i < 3; i += 1) await store.ingress.accept(limited(`fill ${i}`));
      const same = limited('twice', 'key-twice');
      const outcomes = await Promise.all([store.ingress.accept(same), store.ingress.accept({ ...same })]);
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['rate-limited', 'rate-limited']);
      expect(await store.ingress.replay('key-twice', 'fp:twice')).toBeUndefined();
      expect(await queued(store)).toBe(3);
    });

    it('commits exactly `limit` of many acceptances arriving together from two instances', async () => {
      const made = await stores.open();
      if (made.sibling === undefined) throw new Error('the rate admission contract needs a sibling store');
      const other = await made.sibling();
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? made.store : other).ingress.accept(limited(`together ${i}`, `together-${i}`))));
      expect(outcomes.filter((outcome) => outcome.kind === 'committed')).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome.kind === 'rate-limited')).toHaveLength(9);
      expect(await queued(made.store)).toBe(3);
    });

    it('takes exactly `limit` per bucket when two instances hit many buckets in opposite orders, failing no acceptance', async () => {
      const made = await stores.open();
      if (made.sibling === undefined) throw new Error('the rate admission contract needs a sibling store');
      const other = await made.sibling();
      const buckets = Array.from({ length: 6 }, (_, i) => `rate:sentry:k${i}`);
      const send = (store: Store, order: readonly string[], round: number) =>
        Promise.all(order.map((bucket, i) => store.ingress.accept({ ...agentAcceptance(`${bucket} ${round} ${i}`), rateHit: hitAt(NOW, bucket) })));
      const rounds = await Promise.all(
        Array.from({ length: 4 }, (_, round) => [send(made.store, buckets, round), send(other, [...buckets].reverse(), round)]).flat(),
      );
      const outcomes = rounds.flat();
      expect(outcomes).toHaveLength(48);
      expect(outcomes.filter((outcome) => outcome.kind === 'committed')).toHaveLength(6 * RULE.limit);
      expect(outcomes.filter((outcome) => outcome.kind === 'rate-limited')).toHaveLength(48 - 6 * RULE.limit);
      expect(await queued(made.store)).toBe(6 * RULE.limit);
    });

    it('joins a debounce group only while its hit conforms', async () => {
      const { store } = await stores.open();
      const join = (message: string): DebounceJoin => ({ mappingId: 'sentry', key: 'p', action: agent(message), windowMs: 30_000, maxWaitMs: 300_000, keep: 'all', maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 });
      const outcomes = [];
      for (let i = 0; i < 4; i += 1) outcomes.push(await store.debounce.join({ joins: [join(`event ${i}`)], idempotency: { key: `join-${i}`, fingerprint: `fp-${i}` }, rateHit: hitAt(NOW) }, NOW));
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['committed', 'committed', 'committed', 'rate-limited']);
      expect(outcomes[3]).toEqual({ kind: 'rate-limited', retryAfterMs: 20_000 });
      const groupId = outcomes[0]?.kind === 'committed' ? outcomes[0].groups[0]?.groupId : undefined;
      expect((await store.debounce.view(groupId ?? 'missing'))?.deliveries).toBe(3);
      expect(await store.ingress.replay('join-3', 'fp-3')).toBeUndefined();
    });
  });
}
