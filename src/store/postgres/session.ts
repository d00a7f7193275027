import type pg from 'pg';
import type { HeartbeatRow, MainSessionStore, PendingEvent } from '../port.js';
import { connectClient, query, storeError, transaction } from './sql.js';
import { appendExchange, insertDelivery, insertEvent } from './session-writes.js';
import { pendingEventViews, recentHeartbeatViews } from './views.js';

/**
 * The main session shared by every instance. One heartbeat at a time across all of them: the
 * heartbeat holds a session-level advisory lock on its own connection, which PostgreSQL releases
 * by itself when that connection ends, so an instance that dies mid-heartbeat never blocks the
 * others. Consuming is exactly once: an event is marked consumed only while still pending.
 */
export function createPostgresSession(pool: pg.Pool, schema: string): MainSessionStore {
  const lockName = `hookgate.heartbeat.${schema}`;

  /** fn while holding the heartbeat lock, or { held: false } at once when another holds it. */
  async function withHeartbeatLock<T>(fn: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }> {
    const client = await connectClient(pool);
    let broken: Error | undefined;
    try {
      let held: boolean;
      try {
        const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS held', [lockName]);
        held = rows[0]?.held === true;
      } catch (error) {
        broken = error as Error;
        throw storeError(error);
      }
      if (!held) return { held: false };
      try {
        return { held: true, value: await fn() }; // fn's own failure is its caller's, as it is
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockName]).catch((error: unknown) => {
          broken = error as Error; // a dead connection: the server released the lock with it
        });
      }
    } finally {
      client.release(broken);
    }
  }

  return {
    addEvent: (event) => insertEvent(pool, event).catch((error: unknown) => Promise.reject(storeError(error))),
    async listPending(limit, maxChars) {
      if (maxChars === undefined) {
        const { rows } = await query<PendingEvent>(pool, "SELECT id, created_at, text, mode, trusted FROM events WHERE status = 'pending' ORDER BY id LIMIT $1", [limit]);
        return rows;
      }
      // An event is listed while the texts before it still fit: the first that does not is the last.
      const { rows } = await query<PendingEvent>(
        pool,
        `SELECT id, created_at, text, mode, trusted FROM (
           SELECT id, created_at, text, mode, trusted, SUM(char_length(text)) OVER (ORDER BY id) - char_length(text) AS before
           FROM events WHERE status = 'pending' ORDER BY id LIMIT $1
         ) listed WHERE before <= $2 ORDER BY id`,
        [limit, maxChars],
      );
      return rows;
    },
    async countPending(createdUpTo) {
      const { rows } =
        createdUpTo === undefined
          ? await query<{ n: number }>(pool, "SELECT COUNT(*)::int AS n FROM events WHERE status = 'pending'")
          : await query<{ n: number }>(pool, "SELECT COUNT(*)::int AS n FROM events WHERE status = 'pending' AND created_at <= $1", [createdUpTo]);
      return rows[0]?.n ?? 0;
    },
    async newestPendingId() {
      const { rows } = await query<{ id: number }>(pool, "SELECT COALESCE(MAX(id), 0) AS id FROM events WHERE status = 'pending'");
      return rows[0]?.id ?? 0;
    },
    async hasDue(dueUpTo) {
      const { rows } = await query(pool, "SELECT 1 FROM events WHERE status = 'pending' AND (mode = 'now' OR id <= $1) LIMIT 1", [dueUpTo]);
      return rows.length > 0;
    },
    withHeartbeatLock,
    async startHeartbeat(at, eventCount) {
      const { rows } = await query<{ id: number }>(pool, "INSERT INTO heartbeats (started_at, status, event_count) VALUES ($1, 'running', $2) RETURNING id", [at, eventCount]);
      return (rows[0] as { id: number }).id;
    },
    finishHeartbeat: (id, end) =>
      transaction(pool, async (client) => {
        await client.query('UPDATE heartbeats SET status = $2, finished_at = $3, reply = $4, error = $5 WHERE id = $1', [
          id,
          end.status,
          end.at,
          end.status === 'ok' ? end.reply : null,
          end.status === 'error' ? end.error : null,
        ]);
        if (end.status !== 'ok') return [];
        const consumed = await client.query<{ id: number }>(
          "UPDATE events SET status = 'consumed', heartbeat_id = $1, consumed_at = $2 WHERE id = ANY($3::bigint[]) AND status = 'pending' RETURNING id",
          [id, end.at, end.consume],
        );
        await appendExchange(client, end.exchange, end.at);
        if (end.skipped !== undefined) {
          await insertDelivery(client, { at: end.at, heartbeatId: id, channel: end.skipped.channel, status: 'skipped', reason: end.skipped.reason });
          await client.query('UPDATE heartbeats SET delivery = $2 WHERE id = $1', [id, JSON.stringify({ status: 'skipped', reason: end.skipped.reason })]);
        }
        return consumed.rows.map((row) => row.id).sort((a, b) => a - b);
      }),
    async setHeartbeatDelivery(id, delivery) {
      await query(pool, 'UPDATE heartbeats SET delivery = $2 WHERE id = $1', [id, JSON.stringify(delivery)]);
    },
    async closeAbandonedHeartbeats(at) {
      // A heartbeat is running only while its instance holds the lock: holding it ourselves means
      // every `running` one was left by an instance that is gone.
      const outcome = await withHeartbeatLock(() =>
        query(pool, "UPDATE heartbeats SET status = 'error', finished_at = $1, error = 'interrupted by a restart' WHERE status = 'running'", [at]),
      );
      return outcome.held ? (outcome.value.rowCount ?? 0) : 0;
    },
    async lastHeartbeat() {
      const { rows } = await query<HeartbeatRow>(pool, 'SELECT id, started_at, finished_at, status, event_count, error, delivery FROM heartbeats ORDER BY id DESC LIMIT 1');
      return rows[0];
    },
    recentHeartbeats: (limit) => recentHeartbeatViews(pool, limit),
    pendingViews: (limit, includeWakeText) => pendingEventViews(pool, limit, includeWakeText),
  };
}
