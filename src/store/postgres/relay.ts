import type pg from 'pg';
import type { RunRow } from '../port-types.js';
import { ackResult, RELAY_CONSUMER_MEMORY_MS, RELAY_CONSUMERS_LISTED, type RelayAckResult, type RelayLease, type RelayEvent, type RelayStore, type RelayTargetView } from '../relay-types.js';
import { finishRun } from './runs.js';
import { query, RUN_COLUMNS, transaction } from './sql.js';

/**
 * The target's events a consumer may take now (relay-types.ts), as SQLite's relay-store.ts:
 * $1 target, $2 now, $3 consumer. Index runs_relay_backlog.
 */
const ELIGIBLE = `FROM runs AS r
  WHERE r.kind = 'relay' AND r.status = 'queued' AND r.relay_target = $1
    AND (r.lease_until IS NULL OR r.lease_until <= $2 OR r.claimed_by = $3)
    AND (r.session_key = '' OR NOT EXISTS (
      SELECT 1 FROM runs AS e
       WHERE e.kind = 'relay' AND e.status = 'queued' AND e.relay_target = r.relay_target AND e.session_key = r.session_key
         AND e.lease_until > $2 AND e.claimed_by <> $3
         AND (e.created_at < r.created_at OR (e.created_at = r.created_at AND e.seq < r.seq))))`;

/**
 * Relay events on PostgreSQL, shared by every instance. The leases of one target are taken one
 * transaction at a time (a transaction-level advisory lock per target): two consumers asking at
 * once on two instances must not both pass the per-session-key order check.
 */
export function createPostgresRelay(pool: pg.Pool): RelayStore {
  return {
    async lease(request) {
      const { rows } = await query(pool, `SELECT 1 ${ELIGIBLE} LIMIT 1`, [request.target, request.at, request.consumer]);
      if (rows.length === 0) return [];
      return transaction(pool, (client) => leaseEvents(client, request));
    },
    acknowledge: (request, end) =>
      transaction(pool, async (client) => {
        const results: RelayAckResult[] = [];
        for (const ack of request.acks) {
          const sql = `SELECT ${RUN_COLUMNS}, claimed_by FROM runs WHERE run_id = $1 AND kind = 'relay' AND relay_target = $2 FOR UPDATE`;
          const { rows } = await query<RunRow & { claimed_by: string | null }>(client, sql, [ack.id, request.target]);
          const row = rows[0];
          const result = ackResult(row, request.consumer);
          if (result === 'acked' && row !== undefined) await finishRun(client, row.run_id, end(withoutClaim(row), ack));
          results.push(result);
        }
        return results;
      }),
    dropOlderThan: (target, before, limit, end) =>
      transaction(pool, async (client) => {
        const sql = `SELECT ${RUN_COLUMNS} FROM runs WHERE kind = 'relay' AND status = 'queued' AND relay_target = $1 AND created_at < $2 ORDER BY created_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED`;
        const { rows } = await query<RunRow>(client, sql, [target, before, limit]);
        for (const row of rows) await finishRun(client, row.run_id, end(row));
        return rows.map((row) => row.run_id);
      }),
    seen: (target, consumer, at) =>
      transaction(pool, async (client) => {
        const upsert = 'INSERT INTO relay_consumers (target, consumer, last_seen) VALUES ($1, $2, $3) ON CONFLICT (target, consumer) DO UPDATE SET last_seen = GREATEST(relay_consumers.last_seen, EXCLUDED.last_seen)';
        await query(client, upsert, [target, consumer, at]);
        await query(client, 'DELETE FROM relay_consumers WHERE last_seen < $1', [at - RELAY_CONSUMER_MEMORY_MS]);
      }),
    async overview(targets, now) {
      const views: RelayTargetView[] = [];
      for (const target of targets) views.push(await targetView(pool, target, now));
      return views;
    },
  };
}

async function leaseEvents(client: pg.PoolClient, request: RelayLease): Promise<RelayEvent[]> {
  await query(client, "SELECT pg_advisory_xact_lock(hashtext('hookgate.relay:' || $1))", [request.target]);
  const handoff = JSON.stringify({ target: request.target, consumer: request.consumer, retryAt: new Date(request.leaseUntil).toISOString() });
  const { rows } = await query<{ run_id: string; created_at: string; action: string; attempts: number; seq: string }>(
    client,
    `WITH picked AS (SELECT r.run_id ${ELIGIBLE} ORDER BY r.created_at, r.seq LIMIT $4)
     UPDATE runs SET claimed_by = $3, lease_until = $5, attempts = attempts + 1, started_at = COALESCE(started_at, $2), handoff = $6
       FROM picked WHERE runs.run_id = picked.run_id
     RETURNING runs.run_id, runs.created_at, runs.action, runs.attempts, runs.seq`,
    [request.target, request.at, request.consumer, request.max, request.leaseUntil, handoff],
  );
  // RETURNING has no order: the consumer gets them oldest first.
  const ordered = rows.sort((a, b) => Number(a.created_at) - Number(b.created_at) || Number(a.seq) - Number(b.seq));
  return ordered.map((row) => ({ id: row.run_id, createdAt: Number(row.created_at), action: row.action, deliveries: row.attempts }));
}

function withoutClaim(row: RunRow & { claimed_by?: string | null }): RunRow {
  const { claimed_by: _claimedBy, ...rest } = row;
  return rest;
}

async function targetView(pool: pg.Pool, target: string, now: number): Promise<RelayTargetView> {
  const { rows } = await query<{ backlog: number; leased: number; oldest: string | null }>(
    pool,
    "SELECT COUNT(*)::int AS backlog, COUNT(*) FILTER (WHERE lease_until > $2)::int AS leased, MIN(created_at) AS oldest FROM runs WHERE kind = 'relay' AND status = 'queued' AND relay_target = $1",
    [target, now],
  );
  const consumers = await query<{ consumer: string; last_seen: string }>(pool, 'SELECT consumer, last_seen FROM relay_consumers WHERE target = $1 ORDER BY last_seen DESC LIMIT $2', [
    target,
    RELAY_CONSUMERS_LISTED,
  ]);
  const row = rows[0] ?? { backlog: 0, leased: 0, oldest: null };
  return {
    target,
    backlog: row.backlog,
    leased: row.leased,
    ...(row.oldest === null ? {} : { oldestAt: Number(row.oldest) }),
    consumers: consumers.rows.map((consumer) => ({ consumer: consumer.consumer, lastSeen: Number(consumer.last_seen) })),
  };
}
