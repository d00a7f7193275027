import type { DatabaseSync } from 'node:sqlite';
import type { RunRow } from '../port-types.js';
import { ackResult, RELAY_CONSUMER_MEMORY_MS, RELAY_CONSUMERS_LISTED, type RelayLease, type RelayStore, type RelayEvent } from '../relay-types.js';
import { inTransaction, prepareCached } from './connection.js';
import { finishRun } from './run-queries.js';
import { writeWhenFree } from './write-when-free.js';

/**
 * The target's events a consumer may take now (relay-types.ts): not leased, lease over, or its
 * own; and no earlier event of the same session key leased to another consumer. Index
 * runs_relay_backlog.
 */
const ELIGIBLE = `FROM runs AS r
  WHERE r.kind = 'relay' AND r.status = 'queued' AND r.relay_target = :target
    AND (r.lease_until IS NULL OR r.lease_until <= :at OR r.claimed_by = :consumer)
    AND (r.session_key = '' OR NOT EXISTS (
      SELECT 1 FROM runs AS e
       WHERE e.kind = 'relay' AND e.status = 'queued' AND e.relay_target = r.relay_target AND e.session_key = r.session_key
         AND e.lease_until > :at AND e.claimed_by <> :consumer
         AND (e.created_at < r.created_at OR (e.created_at = r.created_at AND e.rowid < r.rowid))))`;

/**
 * Relay events on SQLite: leases and acknowledgements are written on the runtime's connection
 * (one process owns the file, so its write lock orders every lease), reads on `reads`. A consumer
 * asking while nothing is there costs one read and no write lock.
 */
export function createSqliteRelayStore(db: DatabaseSync, reads: DatabaseSync): RelayStore {
  return {
    async lease(request) {
      const params = { target: request.target, at: request.at, consumer: request.consumer };
      if (prepareCached(reads, `SELECT 1 ${ELIGIBLE} LIMIT 1`).get(params) === undefined) return [];
      return writeWhenFree(() => inTransaction(db, () => leaseEvents(db, request)));
    },
    acknowledge: (request, end) =>
      writeWhenFree(() =>
        inTransaction(db, () =>
          request.acks.map((ack) => {
            const row = prepareCached(db, "SELECT * FROM runs WHERE run_id = ? AND kind = 'relay' AND relay_target = ?").get(ack.id, request.target) as (RunRow & { claimed_by: string | null }) | undefined;
            const result = ackResult(row, request.consumer);
            if (result === 'acked' && row !== undefined) finishRun(db, row.run_id, end(row, ack));
            return result;
          }),
        ),
      ),
    dropOlderThan: (target, before, limit, end) =>
      writeWhenFree(() =>
        inTransaction(db, () => {
          const sql = "SELECT * FROM runs WHERE kind = 'relay' AND status = 'queued' AND relay_target = ? AND created_at < ? ORDER BY created_at, rowid LIMIT ?";
          const rows = prepareCached(db, sql).all(target, before, limit) as unknown as RunRow[];
          for (const row of rows) finishRun(db, row.run_id, end(row));
          return rows.map((row) => row.run_id);
        }),
      ),
    seen: (target, consumer, at) =>
      writeWhenFree(() =>
        inTransaction(db, () => {
          const upsert = 'INSERT INTO relay_consumers (target, consumer, last_seen) VALUES (?, ?, ?) ON CONFLICT (target, consumer) DO UPDATE SET last_seen = excluded.last_seen';
          prepareCached(db, upsert).run(target, consumer, at);
          prepareCached(db, 'DELETE FROM relay_consumers WHERE last_seen < ?').run(at - RELAY_CONSUMER_MEMORY_MS);
        }),
      ),
    overview: async (targets, now) => targets.map((target) => targetView(reads, target, now)),
  };
}

function leaseEvents(db: DatabaseSync, request: RelayLease): RelayEvent[] {
  const params = { target: request.target, at: request.at, consumer: request.consumer, max: request.max };
  const rows = prepareCached(db, `SELECT r.run_id, r.created_at, r.action, r.attempts ${ELIGIBLE} ORDER BY r.created_at, r.rowid LIMIT :max`).all(params) as Array<
    Pick<RunRow, 'run_id' | 'created_at' | 'action' | 'attempts'>
  >;
  const handoff = JSON.stringify({ target: request.target, consumer: request.consumer, retryAt: new Date(request.leaseUntil).toISOString() });
  const update = prepareCached(db, 'UPDATE runs SET claimed_by = ?, lease_until = ?, attempts = attempts + 1, started_at = COALESCE(started_at, ?), handoff = ? WHERE run_id = ?');
  for (const row of rows) update.run(request.consumer, request.leaseUntil, request.at, handoff, row.run_id);
  return rows.map((row) => ({ id: row.run_id, createdAt: row.created_at, action: row.action, deliveries: row.attempts + 1 }));
}

function targetView(reads: DatabaseSync, target: string, now: number) {
  const backlog = prepareCached(
    reads,
    "SELECT COUNT(*) AS backlog, COALESCE(SUM(lease_until > ?), 0) AS leased, MIN(created_at) AS oldest FROM runs WHERE kind = 'relay' AND status = 'queued' AND relay_target = ?",
  ).get(now, target) as { backlog: number; leased: number; oldest: number | null };
  const consumers = prepareCached(reads, 'SELECT consumer, last_seen FROM relay_consumers WHERE target = ? ORDER BY last_seen DESC LIMIT ?').all(target, RELAY_CONSUMERS_LISTED) as Array<{
    consumer: string;
    last_seen: number;
  }>;
  return {
    target,
    backlog: backlog.backlog,
    leased: backlog.leased,
    ...(backlog.oldest === null ? {} : { oldestAt: backlog.oldest }),
    consumers: consumers.map((row) => ({ consumer: row.consumer, lastSeen: row.last_seen })),
  };
}
