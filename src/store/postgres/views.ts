import type pg from 'pg';
import type { EventView, HeartbeatView, RunFilter, RunRow, RunView } from '../port.js';
import { toEventView, toHeartbeatView, toRunView, type EventViewRow, type HeartbeatViewRow } from '../row-views.js';
import { query, RUN_COLUMNS } from './sql.js';

/** What the run endpoint, the console and `hookgate status` read: rows turned into the port's views. */

/** Newest first (creation time, then insertion order); `next` is the cursor of the following page. */
export async function listRunViews(pool: pg.Pool, filter: RunFilter): Promise<{ runs: RunView[]; next?: string }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: (n: number) => string, value: unknown): void => {
    params.push(value);
    where.push(clause(params.length));
  };
  if (filter.status !== undefined) add((n) => `status = $${n}`, filter.status);
  if (filter.hook !== undefined) add((n) => `hook = $${n}`, filter.hook);
  if (filter.sessionKey !== undefined) add((n) => `session_key = $${n}`, filter.sessionKey);
  if (filter.before !== undefined) {
    const anchor = await query<{ created_at: number; seq: number }>(pool, 'SELECT created_at, seq FROM runs WHERE run_id = $1', [filter.before]);
    const row = anchor.rows[0];
    if (row === undefined) return { runs: [] };
    params.push(row.created_at, row.seq);
    where.push(`(created_at, seq) < ($${params.length - 1}::bigint, $${params.length}::bigint)`);
  }
  params.push(filter.limit + 1);
  const sql = `SELECT ${RUN_COLUMNS} FROM runs ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY created_at DESC, seq DESC LIMIT $${params.length}`;
  const { rows } = await query<RunRow>(pool, sql, params);
  const page = rows.slice(0, filter.limit).map(toRunView);
  const last = page[page.length - 1];
  return rows.length > filter.limit && last !== undefined ? { runs: page, next: last.runId } : { runs: page };
}

export async function pendingEventViews(pool: pg.Pool, limit: number, includeWakeText: boolean): Promise<EventView[]> {
  const { rows } = await query<EventViewRow>(
    pool,
    "SELECT id, created_at, text, mode, hook, mapping_id, run_id FROM events WHERE status = 'pending' ORDER BY id LIMIT $1",
    [limit],
  );
  return rows.map((row) => toEventView(row, includeWakeText));
}

export async function recentHeartbeatViews(pool: pg.Pool, limit: number): Promise<HeartbeatView[]> {
  const { rows } = await query<HeartbeatViewRow>(
    pool,
    'SELECT id, started_at, finished_at, status, event_count, reply, error, delivery FROM heartbeats ORDER BY id DESC LIMIT $1',
    [limit],
  );
  return rows.map(toHeartbeatView);
}
