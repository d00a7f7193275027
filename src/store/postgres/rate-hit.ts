import { gcraRetryAfter, gcraSpacing } from '../gate-decision.js';
import type { RateHitRequest, RateVerdict } from '../limit-types.js';
import type { Queryable } from './sql.js';

/** Rate hits through one adapter between two sweeps of spent buckets (a bucket whose time has passed holds nothing). */
const PRUNE_EVERY_HITS = 1000;

/**
 * One GCRA step on PostgreSQL (gate-decision.ts's arithmetic in SQL), on the pool (its own
 * transaction) or inside the caller's: ON CONFLICT locks the bucket's row until that transaction
 * ends, so concurrent hits on one bucket, from any instance, take turns and never both take its
 * last place. `counter` paces the sweep of spent buckets.
 */
export async function postgresRateHit(db: Queryable, { bucket, rule, now }: RateHitRequest, counter: { hits: number }): Promise<RateVerdict> {
  counter.hits += 1;
  if (counter.hits % PRUNE_EVERY_HITS === 0) await db.query('DELETE FROM limit_buckets WHERE tat < $1', [now]);
  const { interval, tolerance } = gcraSpacing(rule);
  const { rows } = await db.query<{ tat: number }>(
    `INSERT INTO limit_buckets (bucket, tat) VALUES ($1, $2::float8 + $3::float8)
     ON CONFLICT (bucket) DO UPDATE SET tat = GREATEST(limit_buckets.tat, $2::float8) + $3::float8 WHERE GREATEST(limit_buckets.tat, $2::float8) - $2::float8 <= $4::float8
     RETURNING tat`,
    [bucket, now, interval, tolerance],
  );
  if (rows.length > 0) return { allowed: true, retryAfterMs: 0 };
  const current = await db.query<{ tat: number }>('SELECT tat FROM limit_buckets WHERE bucket = $1', [bucket]);
  return { allowed: false, retryAfterMs: gcraRetryAfter(current.rows[0]?.tat ?? now, rule, now) };
}
