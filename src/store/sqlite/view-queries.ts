import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
import { toRunView } from './run-queries.js';
import type { EventView, HeartbeatView, RecordedDelivery, RunFilter, RunRow, RunView } from '../port-types.js';

/** Read-only queries for views (the console, `hookgate status`): filtered run pages, the main session's state. */

/** Newest first; `next` is the cursor of the following page, undefined on the last one. */
export function listRunViews(db: DatabaseSync, filter: RunFilter): { runs: RunView[]; next?: string } {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filter.status !== undefined) (where.push('status = ?'), params.push(filter.status));
  if (filter.hook !== undefined) (where.push('hook = ?'), params.push(filter.hook));
  if (filter.sessionKey !== undefined) (where.push('session_key = ?'), params.push(filter.sessionKey));
  if (filter.before !== undefined) {
    const anchor = prepareCached(db, 'SELECT created_at, rowid AS rid FROM runs WHERE run_id = ?').get(filter.before) as { created_at: number; rid: number } | undefined;
    if (anchor === undefined) return { runs: [] };
    where.push('(created_at < ? OR (created_at = ? AND rowid < ?))');
    params.push(anchor.created_at, anchor.created_at, anchor.rid);
  }
  const sql = `SELECT * FROM runs ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
  const rows = db.prepare(sql).all(...params, filter.limit + 1) as unknown as RunRow[];
  const page = rows.slice(0, filter.limit).map(toRunView);
  const last = page[page.length - 1];
  return rows.length > filter.limit && last !== undefined ? { runs: page, next: last.runId } : { runs: page };
}

/** The oldest pending events first. Event text of a wake is payload content: included only when includeWakeText. */
export function pendingEventViews(db: DatabaseSync, limit: number, includeWakeText: boolean): EventView[] {
  const rows = prepareCached(db, "SELECT id, created_at, text, mode, hook, mapping_id, run_id FROM events WHERE status = 'pending' ORDER BY id LIMIT ?").all(
    limit,
  ) as Array<{ id: number; created_at: number; text: string; mode: string; hook: string; mapping_id: string | null; run_id: string | null }>;
  return rows.map((row) => ({
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    mode: row.mode,
    hook: row.hook,
    chars: row.text.length,
    ...(row.mapping_id === null ? {} : { mappingId: row.mapping_id }),
    ...(row.run_id === null ? {} : { runId: row.run_id }),
    ...(row.run_id !== null || includeWakeText ? { text: row.text } : {}),
  }));
}

/** The newest heartbeats first, with their replies and delivery outcomes. */
export function recentHeartbeatViews(db: DatabaseSync, limit: number): HeartbeatView[] {
  const rows = prepareCached(db, 'SELECT * FROM heartbeats ORDER BY id DESC LIMIT ?').all(limit) as Array<{
    id: number;
    started_at: number;
    finished_at: number | null;
    status: string;
    event_count: number;
    reply: string | null;
    error: string | null;
    delivery: string | null;
  }>;
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    startedAt: new Date(row.started_at).toISOString(),
    events: row.event_count,
    ...(row.finished_at === null ? {} : { finishedAt: new Date(row.finished_at).toISOString() }),
    ...(row.reply === null ? {} : { reply: row.reply }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.delivery === null ? {} : { delivery: JSON.parse(row.delivery) as RecordedDelivery }),
  }));
}
