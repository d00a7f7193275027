import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from './connection.js';
import { hitBucket, readTat } from './limit-queries.js';
import { writeWhenFree } from './write-when-free.js';

/** One GCRA step asked for: the bucket moves on only when the hit conforms. */
export interface RateHit {
  bucket: string;
  now: number;
  interval: number;
  tolerance: number;
}

/** `tat` after an admitted hit; for a refused one, the bucket's current `tat` (for Retry-After). */
export type RateHitResult = { allowed: true } | { allowed: false; tat: number | undefined };

/**
 * Rate hits that arrive in one turn of the event loop share one write transaction on the
 * runtime's connection. Under load that is one commit for many deliveries instead of one each: a
 * commit per hit, retried whenever the ingress writer held the lock, cost more CPU than the rest of
 * admission. Each hit is still decided inside the transaction (BEGIN IMMEDIATE serialises every
 * connection to the file), so two stores on one file never both take a key's last place.
 */
export function createRateHitBatcher(db: DatabaseSync): (hit: RateHit) => Promise<RateHitResult> {
  let pending: Array<{ hit: RateHit; resolve: (result: RateHitResult) => void; reject: (error: unknown) => void }> = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    writeWhenFree(() => inTransaction(db, () => batch.map(({ hit }) => decide(db, hit)))).then(
      (results) => batch.forEach((entry, index) => entry.resolve(results[index] as RateHitResult)),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
  };
  return (hit) =>
    new Promise((resolve, reject) => {
      pending.push({ hit, resolve, reject });
      if (pending.length === 1) setImmediate(flush);
    });
}

function decide(db: DatabaseSync, hit: RateHit): RateHitResult {
  if (hitBucket(db, hit.bucket, hit.now, hit.interval, hit.tolerance) !== undefined) return { allowed: true };
  return { allowed: false, tat: readTat(db, hit.bucket) };
}
