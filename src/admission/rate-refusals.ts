/** Buckets remembered at most; the ones whose time passed go first, then the oldest. */
const MAX_REMEMBERED = 10_000;

/**
 * What this process learned from the store's refused rate hits: bucket B is full until T. A GCRA
 * bucket fills only by hits and never empties early, so a delivery refused from this memory is one
 * the store would refuse too; the memory only spares the store a read per delivery (a read that
 * costs more than the rest of the check, since every commit of the writer thread invalidates the
 * reading connection's cache). What it does not know (a restart, another instance's hits) the
 * commit still decides. Keyed with the rule, so a reload that changes a limit starts afresh.
 */
export interface RateRefusals {
  /** Ms until a hit on the bucket could conform, when this process knows it cannot yet. */
  fullFor(bucket: string, rule: { limit: number; periodMs: number }, now: number): number | undefined;
  /** The store refused a hit at `now`: the next would conform `retryAfterMs` later. */
  remember(bucket: string, rule: { limit: number; periodMs: number }, now: number, retryAfterMs: number): void;
}

export function createRateRefusals(maxRemembered = MAX_REMEMBERED): RateRefusals {
  const fullUntil = new Map<string, number>();
  const keyOf = (bucket: string, rule: { limit: number; periodMs: number }) => `${rule.limit}/${rule.periodMs}\n${bucket}`;
  const evict = (now: number): void => {
    for (const [key, until] of fullUntil) if (until <= now) fullUntil.delete(key);
    // Still full of live entries: drop the oldest (Map keeps insertion order).
    for (const key of fullUntil.keys()) {
      if (fullUntil.size < maxRemembered) break;
      fullUntil.delete(key);
    }
  };
  return {
    fullFor(bucket, rule, now) {
      const key = keyOf(bucket, rule);
      const until = fullUntil.get(key);
      if (until === undefined) return undefined;
      if (until > now) return until - now;
      fullUntil.delete(key);
      return undefined;
    },
    remember(bucket, rule, now, retryAfterMs) {
      // The store rounds the wait up to a whole ms: one ms less is certain to be within it.
      const until = now + retryAfterMs - 1;
      if (until <= now) return;
      const key = keyOf(bucket, rule);
      fullUntil.delete(key);
      if (fullUntil.size >= maxRemembered) evict(now);
      fullUntil.set(key, until);
    },
  };
}
