import type { DatabaseSync } from 'node:sqlite';
import type { RateHitRequest, RateVerdict } from '../limit-types.js';
import { inTransaction } from './connection.js';
import { createTransactionBuckets } from './transaction-buckets.js';
import { writeWhenFree } from './write-when-free.js';

/**
 * Rate hits that arrive in one turn of the event loop (the limit store's: alert conditions) share
 * one write transaction on the runtime's connection, decided as the writer thread decides an
 * acceptance's (transaction-buckets.ts): one commit for many hits instead of one each.
 */
export function createRateHitBatcher(db: DatabaseSync): (hit: RateHitRequest) => Promise<RateVerdict> {
  const counter = { hits: 0 };
  let pending: Array<{ hit: RateHitRequest; resolve: (result: RateVerdict) => void; reject: (error: unknown) => void }> = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    const decide = (): RateVerdict[] => {
      const buckets = createTransactionBuckets(db, counter);
      const verdicts = batch.map(({ hit }) => buckets.hit(hit));
      buckets.flush();
      return verdicts;
    };
    writeWhenFree(() => inTransaction(db, decide)).then(
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
