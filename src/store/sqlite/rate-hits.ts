import type { DatabaseSync } from 'node:sqlite';
import { gcraRetryAfter, gcraSpacing } from '../gate-decision.js';
import type { RateHitRequest, RateVerdict } from '../limit-types.js';
import { inTransaction } from './connection.js';
import { hitBucket, pruneBuckets, readTat } from './limit-queries.js';
import { writeWhenFree } from './write-when-free.js';

/** Rate hits on one connection between two sweeps of spent buckets (a bucket whose time has passed holds nothing). */
const PRUNE_EVERY_HITS = 1000;
const hitsByConnection = new WeakMap<DatabaseSync, number>();

/**
 * One GCRA step inside the caller's write transaction: the bucket moves on only when the hit
 * conforms. BEGIN IMMEDIATE serialises every connection to the file, so two stores on one file
 * never both take a key's last place. Used by the ingress writer (in an acceptance's own
 * transaction), by debounce joins and by the limit store.
 */
export function rateHitInTransaction(db: DatabaseSync, { bucket, rule, now }: RateHitRequest): RateVerdict {
  const hits = (hitsByConnection.get(db) ?? 0) + 1;
  hitsByConnection.set(db, hits);
  if (hits % PRUNE_EVERY_HITS === 0) pruneBuckets(db, now);
  const { interval, tolerance } = gcraSpacing(rule);
  if (hitBucket(db, bucket, now, interval, tolerance) !== undefined) return { allowed: true, retryAfterMs: 0 };
  return { allowed: false, retryAfterMs: gcraRetryAfter(readTat(db, bucket) ?? now, rule, now) };
}

/**
 * Rate hits that arrive in one turn of the event loop share one write transaction on the
 * runtime's connection: one commit for many hits instead of one each. Each hit is still decided
 * inside the transaction.
 */
export function createRateHitBatcher(db: DatabaseSync): (hit: RateHitRequest) => Promise<RateVerdict> {
  let pending: Array<{ hit: RateHitRequest; resolve: (result: RateVerdict) => void; reject: (error: unknown) => void }> = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    writeWhenFree(() => inTransaction(db, () => batch.map(({ hit }) => rateHitInTransaction(db, hit)))).then(
      (results) => batch.forEach((entry, index) => entry.resolve(results[index] as RateVerdict)),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
  };
  return (hit) =>
    new Promise((resolve, reject) => {
      pending.push({ hit, resolve, reject });
      if (pending.length === 1) setImmediate(flush);
    });
}
