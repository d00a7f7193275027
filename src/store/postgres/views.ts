import type pg from 'pg';
import type { EventView, HeartbeatView, RecordedDelivery, RunFilter, RunRow, RunView } from '../port.js';
import { query, RUN_COLUMNS } from './sql.js';

/** What the run endpoint, the console and `hookgate status` read: rows turned into the port's views. */

export function toRunView(row: RunRow): RunView {
  const view: RunView = {
    runId: row.run_id,
    status: row.status,
    hook: row.hook,
    name: row.name,
    sessionKey: row.session_key,
    createdAt: iso(row.created_at),
    attempts: row.attempts,
  };
  if (row.started_at !== null) view.startedAt = iso(row.started_at);
  if (row.finished_at !== null) view.finishedAt = iso(row.finished_at);
  if (row.summary !== null) view.summary = row.summary;
  if (row.error !== null) view.error = row.error;
  if (row.delivery !== null) view.delivery = JSON.parse(row.delivery) as RecordedDelivery;
  if (row.retry_of !== null) view.retryOf = row.retry_of;
  return view;
}

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
  const { rows } = await query<{ id: number; created_at: number; text: string; mode: string; hook: string; mapping_id: string | null; run_id: string | null }>(
    pool,
    "SELECT id, created_at, text, mode, hook, mapping_id, run_id FROM events WHERE status = 'pending' ORDER BY id LIMIT $1",
    [limit],
  );
  return rows.map((row) => ({
    id: row.id,
    createdAt: iso(row.created_at),
    mode: row.mode,
    hook: row.hook,
    chars: row.text.length,
    ...(row.mapping_id === null ? {} : { mappingId: row.mapping_id }),
    ...(row.run_id === null ? {} : { runId: row.run_id }),
    ...(row.run_id !== null || includeWakeText ? { text: row.text } : {}),
  }));
}

export async function recentHeartbeatViews(pool: pg.Pool, limit: number): Promise<HeartbeatView[]> {
  const { rows } = await query<{
    id: number;
    started_at: number;
    finished_at: number | null;
    status: string;
    event_count: number;
    reply: string | null;
    error: string | null;
    delivery: string | null;
  }>(pool, 'SELECT id, started_at, finished_at, status, event_count, reply, error, delivery FROM heartbeats ORDER BY id DESC LIMIT $1', [limit]);
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    startedAt: iso(row.started_at),
    events: row.event_count,
    ...(row.finished_at === null ? {} : { finishedAt: iso(row.finished_at) }),
    ...(row.reply === null ? {} : { reply: row.reply }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.delivery === null ? {} : { delivery: JSON.parse(row.delivery) as RecordedDelivery }),
  }));
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
