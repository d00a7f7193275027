import type pg from 'pg';
import type { PendingRunFilter, PendingRunRow } from '../debounce-port.js';
import { pendingRunPage, type PendingRunSqlRow } from '../debounce-rows.js';
import { query } from './sql.js';

/** The groups that become runs, newest first, each with its newest member's hook, name and session key (as on SQLite: ids in byte order). */
export async function listPendingRuns(pool: pg.Pool, filter: PendingRunFilter): Promise<{ runs: PendingRunRow[]; next?: string }> {
  const where = ["g.kind <> 'wake'"];
  const params: unknown[] = [];
  const param = (value: unknown): string => `$${params.push(value)}`;
  if (filter.hook !== undefined) where.push(`${HOOK} = ${param(filter.hook)}`);
  if (filter.sessionKey !== undefined) where.push(`coalesce(${SESSION_KEY}, '') = ${param(filter.sessionKey)}`);
  if (filter.before !== undefined) {
    const { rows } = await query<{ created_at: string }>(pool, 'SELECT created_at FROM debounce_groups WHERE group_id = $1', [filter.before]);
    const anchor = rows[0];
    if (anchor === undefined) return { runs: [] };
    const at = param(anchor.created_at);
    where.push(`(g.created_at < ${at} OR (g.created_at = ${at} AND g.group_id COLLATE "C" < ${param(filter.before)}))`);
  }
  const { rows } = await query<PendingRunSqlRow>(
    pool,
    `SELECT g.group_id, g.mapping_id, g.kind, g.status, g.deliveries, g.created_at, g.fire_at,
        ${HOOK} AS hook, m.action::jsonb ->> 'name' AS name, ${SESSION_KEY} AS session_key
      FROM debounce_groups g
      JOIN debounce_members m ON m.group_id = g.group_id AND m.seq = (SELECT MAX(seq) FROM debounce_members WHERE group_id = g.group_id)
      WHERE ${where.join(' AND ')}
      ORDER BY g.created_at DESC, g.group_id COLLATE "C" DESC LIMIT ${param(filter.limit + 1)}`,
    params,
  );
  return pendingRunPage(rows, filter.limit);
}

const HOOK = "m.action::jsonb #>> '{origin,hook}'";
const SESSION_KEY = "m.action::jsonb ->> 'sessionKey'";
