import type { DatabaseSync } from 'node:sqlite';
import { gcra } from '../gate-decision.js';
import type { RateHitRequest, RateVerdict } from '../limit-types.js';
import { pruneBuckets, readTat, writeTat } from './limit-queries.js';

/** Rate hits between two sweeps of spent buckets (a bucket whose time has passed holds nothing). */
const PRUNE_EVERY_HITS = 1000;

export interface TransactionBuckets {
  /** One GCRA step, decided at once (the transaction holds the write lock, so nothing else moves the bucket). */
  hit(request: RateHitRequest): RateVerdict;
  /** Writes every bucket that moved: call inside the transaction, before COMMIT. */
  flush(): void;
}

/**
 * The rate hits of one write transaction (the writer thread's acceptances and debounce joins, many
 * per group commit; the limit store's batches): each bucket is read once, every hit on it decided
 * in turn with gate-decision.ts's GCRA, and its final time written once before COMMIT. BEGIN
 * IMMEDIATE serialises every connection to the file, so two stores on one file never both take a
 * key's last place. Made per transaction; a rolled-back transaction simply drops it.
 */
export function createTransactionBuckets(db: DatabaseSync, counter: { hits: number }): TransactionBuckets {
  const tats = new Map<string, number | undefined>();
  const moved = new Set<string>();
  let lastNow: number | undefined;
  return {
    hit({ bucket, rule, now }) {
      counter.hits += 1;
      lastNow = now;
      if (!tats.has(bucket)) tats.set(bucket, readTat(db, bucket));
      const verdict = gcra(tats.get(bucket), rule, now);
      if (!verdict.allowed) return verdict;
      tats.set(bucket, verdict.tat);
      moved.add(bucket);
      return { allowed: true, retryAfterMs: 0 };
    },
    flush() {
      for (const bucket of moved) writeTat(db, bucket, tats.get(bucket) as number);
      if (lastNow !== undefined && counter.hits >= PRUNE_EVERY_HITS) {
        counter.hits = 0;
        pruneBuckets(db, lastNow);
      }
    },
  };
}
