import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
import type { EventView, HeartbeatView, ModelCalls, RunFilter, RunRow, RunView } from '../port-types.js';
import { toEventView, toHeartbeatView, toRunView, type EventViewRow, type HeartbeatViewRow } from '../row-views.js';

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
  ) as unknown as EventViewRow[];
  return rows.map((row) => toEventView(row, includeWakeText));
}

/** The newest heartbeats first, with their replies and delivery outcomes. */
export function recentHeartbeatViews(db: DatabaseSync, limit: number): HeartbeatView[] {
  const rows = prepareCached(db, 'SELECT * FROM heartbeats ORDER BY id DESC LIMIT ?').all(limit) as unknown as HeartbeatViewRow[];
  return rows.map(toHeartbeatView);
}

/** Agent runs and heartbeats started at or after `since` (indexes `runs_by_start`, `heartbeats_by_start`). */
export function countModelCalls(db: DatabaseSync, since: number): ModelCalls {
  const row = prepareCached(
    db,
    "SELECT (SELECT COUNT(*) FROM runs WHERE started_at >= ? AND kind = 'agent') AS runs, (SELECT COUNT(*) FROM heartbeats WHERE started_at >= ?) AS heartbeats",
  ).get(since, since) as { runs: number; heartbeats: number };
  return { runs: row.runs, heartbeats: row.heartbeats };
}
