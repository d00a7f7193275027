import { gcra } from '../../src/store/gate-decision.js';
import type { LimitStore } from '../../src/store/port.js';

/** Rate buckets in a Map with the store's own GCRA decision: for tests of what calls the store, not of the store. */
export function fakeBuckets(): Pick<LimitStore, 'rateHit'> & { tats: Map<string, number> } {
  const tats = new Map<string, number>();
  return {
    tats,
    async rateHit(bucket, rule, now, peek = false) {
      const verdict = gcra(tats.get(bucket), rule, now);
      if (!verdict.allowed) return verdict;
      if (!peek) tats.set(bucket, verdict.tat);
      return { allowed: true, retryAfterMs: 0 };
    },
  };
}
