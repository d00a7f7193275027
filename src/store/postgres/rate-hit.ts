import { gcra } from '../gate-decision.js';
import type { RateHitRequest, RateVerdict } from '../limit-types.js';
import type { Queryable } from './sql.js';

/**
 * Rate hits inside the caller's transaction (a batch's acceptances, a debounce join, the limit
 * store's alert conditions), in two statements whatever their number. The first
 * makes every bucket's row exist and locks it, in bucket order, returning its time: two instances'
 * batches never wait on each other in a cycle, and no row can vanish before it is locked. Each hit
 * is then decided in turn with gate-decision.ts's GCRA, and each moved bucket written once. A
 * fresh row starts at time 0, which GCRA reads as an empty bucket.
 */
export async function postgresRateHits(db: Queryable, hits: readonly RateHitRequest[]): Promise<RateVerdict[]> {
  const buckets = [...new Set(hits.map((hit) => hit.bucket))].sort();
  const { rows } = await db.query<{ bucket: string; tat: number }>(
    `INSERT INTO limit_buckets (bucket, tat) SELECT b, 0 FROM unnest($1::text[]) WITH ORDINALITY AS u(b, o) ORDER BY o
     ON CONFLICT (bucket) DO UPDATE SET tat = limit_buckets.tat
     RETURNING bucket, tat`,
    [buckets],
  );
  const tats = new Map(rows.map((row) => [row.bucket, Number(row.tat)]));
  const moved = new Set<string>();
  const verdicts = hits.map(({ bucket, rule, now }): RateVerdict => {
    const verdict = gcra(tats.get(bucket), rule, now);
    if (!verdict.allowed) return verdict;
    tats.set(bucket, verdict.tat);
    moved.add(bucket);
    return { allowed: true, retryAfterMs: 0 };
  });
  if (moved.size > 0) {
    const names = [...moved];
    await db.query('UPDATE limit_buckets SET tat = u.t FROM unnest($1::text[], $2::float8[]) AS u(b, t) WHERE limit_buckets.bucket = u.b', [names, names.map((name) => tats.get(name))]);
  }
  return verdicts;
}

/**
 * Deletes buckets whose time has passed (they hold nothing a missing row would not), skipping rows
 * a transaction holds: run on its own, it never waits on (or deadlocks with) a batch's hits.
 */
export async function pruneSpentBuckets(db: Queryable, now: number): Promise<void> {
  await db.query('DELETE FROM limit_buckets WHERE bucket IN (SELECT bucket FROM limit_buckets WHERE tat < $1 FOR UPDATE SKIP LOCKED)', [now]);
}
