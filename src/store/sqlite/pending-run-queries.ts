import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { PendingRunFilter, PendingRunRow } from '../debounce-port.js';
import { pendingRunPage, type PendingRunSqlRow } from '../debounce-rows.js';

/**
 * The groups that become runs, newest first, each with its newest member's hook, name and session
 * key (read from the stored action with json_extract, never the whole action into JavaScript).
 */
export function listPendingRuns(db: DatabaseSync, filter: PendingRunFilter): { runs: PendingRunRow[]; next?: string } {
  const where = ["g.kind <> 'wake'"];
  const params: SQLInputValue[] = [];
  if (filter.hook !== undefined) (where.push(`${HOOK} = ?`), params.push(filter.hook));
  if (filter.sessionKey !== undefined) (where.push(`coalesce(${SESSION_KEY}, '') = ?`), params.push(filter.sessionKey));
  if (filter.before !== undefined) {
    const anchor = db.prepare('SELECT created_at FROM debounce_groups WHERE group_id = ?').get(filter.before) as { created_at: number } | undefined;
    if (anchor === undefined) return { runs: [] };
    where.push('(g.created_at < ? OR (g.created_at = ? AND g.group_id < ?))');
    params.push(anchor.created_at, anchor.created_at, filter.before);
  }
  const sql = `SELECT g.group_id, g.mapping_id, g.kind, g.status, g.deliveries, g.created_at, g.fire_at,
      ${HOOK} AS hook, json_extract(m.action, '$.name') AS name, ${SESSION_KEY} AS session_key
    FROM debounce_groups g
    JOIN debounce_members m ON m.group_id = g.group_id AND m.seq = (SELECT MAX(seq) FROM debounce_members WHERE group_id = g.group_id)
    WHERE ${where.join(' AND ')}
    ORDER BY g.created_at DESC, g.group_id DESC LIMIT ?`;
  return pendingRunPage(db.prepare(sql).all(...params, filter.limit + 1) as unknown as PendingRunSqlRow[], filter.limit);
}

const HOOK = "json_extract(m.action, '$.origin.hook')";
const SESSION_KEY = "json_extract(m.action, '$.sessionKey')";
