import type pg from 'pg';
import type { RateVerdict } from '../limit-types.js';
import type { AcceptedResponse, AdmittedAction } from '../../actions/types.js';
import { idempotencyConflict } from '../acceptance-outcomes.js';
import { debouncedResponse, type DebounceJoin, type DebounceOutcome, type DebounceStore, type JoinedGroup } from '../debounce-port.js';
import {
  bytesAfterJoin,
  dueGroup,
  earliestLook,
  GROUP_COLUMNS,
  groupIdOf,
  groupKeyHash,
  groupMember,
  groupView,
  NEXT_LOOK_SQL,
  openedGroup,
  rearmed,
  shortKey,
  storedMember,
  takesMember,
  type GroupRow,
} from '../debounce-rows.js';
import { postgresRateHits } from './rate-hit.js';
import { JoinRefused } from './join-refused.js';
import { claimKeys } from './idempotency.js';
import { query, transaction } from './sql.js';
import { listPendingRuns } from './pending-runs.js';

/**
 * Debounce groups on PostgreSQL, shared by every instance. Joins of one key are serialised by a
 * transaction-scoped advisory lock on the key's hash (two instances never open two groups for one
 * key); a claim takes due groups with FOR UPDATE SKIP LOCKED, so exactly one instance fires each;
 * a claim whose firer died lapses with its lease.
 */
export function createPostgresDebounce(pool: pg.Pool, idempotencyTtlMs: number): DebounceStore {
  return {
    async join(acceptance, at) {
      try {
        return await transaction(pool, async (client): Promise<DebounceOutcome> => {
          const groups: JoinedGroup[] = [];
          // Sorted locks: two requests joining the same keys never wait on each other in a cycle.
          const hashes = [...new Set(acceptance.joins.map(groupKeyHash))].sort();
          for (const hash of hashes) await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 28))', [hash]);
          for (const join of acceptance.joins) groups.push(await joinOne(client, join, at));
          const response = debouncedResponse(acceptance.joins, groups.map((group) => group.groupId));
          const { idempotency } = acceptance;
          if (idempotency !== undefined) {
            const item = { index: 0, key: idempotency.key, fingerprint: idempotency.fingerprint, responseJson: JSON.stringify(response) };
            const outcome = (await claimKeys(client, [item], at, at - idempotencyTtlMs)).get(0);
            if (outcome !== undefined && outcome.kind !== 'write') throw new JoinRefused(outcome);
          }
          // After the key (a replay is not counted again); a refused hit rolls the joins back.
          if (acceptance.rateHit !== undefined) {
            const [verdict] = (await postgresRateHits(client, [acceptance.rateHit])) as [RateVerdict];
            if (!verdict.allowed) throw new JoinRefused({ kind: 'rate-limited', retryAfterMs: verdict.retryAfterMs });
          }
          return { kind: 'committed', response, groups };
        });
      } catch (error) {
        if (!(error instanceof JoinRefused)) throw error;
        if (error.outcome.kind === 'conflict') throw idempotencyConflict();
        if (error.outcome.kind === 'rate-limited') return error.outcome;
        return { kind: 'replayed', response: JSON.parse(error.outcome.responseJson) as AcceptedResponse };
      }
    },
    claimDue: (now, owner, leaseUntil, limit) =>
      transaction(pool, async (client) => {
        const { rows } = await client.query<GroupRow>(
          `UPDATE debounce_groups SET status = 'firing', claimed_by = $2, lease_until = $3
            WHERE group_id IN (
              SELECT group_id FROM debounce_groups
               WHERE (status = 'open' AND fire_at <= $1) OR (status = 'firing' AND lease_until <= $1)
               ORDER BY fire_at LIMIT $4 FOR UPDATE SKIP LOCKED)
            RETURNING ${GROUP_COLUMNS}`,
          [now, owner, leaseUntil, limit],
        );
        if (rows.length === 0) return [];
        const counts = await client.query<{ group_id: string; stored: number }>(
          'SELECT group_id, COUNT(*)::int AS stored FROM debounce_members WHERE group_id = ANY($1::text[]) GROUP BY group_id',
          [rows.map((row) => row.group_id)],
        );
        const stored = new Map(counts.rows.map((row) => [row.group_id, row.stored]));
        return rows.map((row) => dueGroup(row, stored.get(row.group_id) ?? 0));
      }),
    async newestMember(groupId) {
      const { rows } = await query<{ action: string }>(pool, 'SELECT action FROM debounce_members WHERE group_id = $1 ORDER BY seq DESC LIMIT 1', [groupId]);
      return rows[0] === undefined ? undefined : (JSON.parse(rows[0].action) as AdmittedAction);
    },
    async members(groupId, afterSeq, limit) {
      const { rows } = await query<{ seq: string; action: string }>(pool, 'SELECT seq, action FROM debounce_members WHERE group_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [groupId, afterSeq, limit]);
      return rows.map(groupMember);
    },
    async fired(groupId, owner) {
      await transaction(pool, async (client) => {
        const removed = await client.query("DELETE FROM debounce_groups WHERE group_id = $1 AND status = 'firing' AND claimed_by = $2", [groupId, owner]);
        if ((removed.rowCount ?? 0) > 0) await client.query('DELETE FROM debounce_members WHERE group_id = $1', [groupId]);
      });
    },
    async view(groupId) {
      const { rows } = await query<GroupRow>(pool, `SELECT ${GROUP_COLUMNS} FROM debounce_groups WHERE group_id = $1`, [groupId]);
      return rows[0] === undefined ? undefined : groupView(rows[0]);
    },
    async listOpen(limit) {
      const { rows } = await query<GroupRow>(pool, `SELECT ${GROUP_COLUMNS} FROM debounce_groups ORDER BY fire_at LIMIT $1`, [limit]);
      return rows.map(groupView);
    },
    listPendingRuns: (filter) => listPendingRuns(pool, filter),
    async countOpen() {
      const { rows } = await query<{ n: number }>(pool, 'SELECT COUNT(*)::int AS n FROM debounce_groups');
      return rows[0]?.n ?? 0;
    },
    async joinsOpenGroup(joins, at) {
      const hashes = joins.map(groupKeyHash);
      const { rows } = await query<{ key_hash: string; deliveries: number; bytes: string }>(
        pool,
        `SELECT DISTINCT ON (key_hash) key_hash, deliveries, bytes FROM debounce_groups
          WHERE key_hash = ANY($1::text[]) AND status = 'open' AND fire_at > $2 ORDER BY key_hash, created_at DESC`,
        [hashes, at],
      );
      const open = new Map(rows.map((row) => [row.key_hash, row]));
      return joins.map((join, index) => {
        const group = open.get(hashes[index] as string);
        return group !== undefined && takesMember(join, group, storedMember(join).bytes);
      });
    },
    async nextFireAt() {
      const { rows } = await query<{ open_at: string | null; lease_at: string | null }>(pool, NEXT_LOOK_SQL);
      return earliestLook(rows[0]);
    },
  };
}

async function joinOne(client: pg.PoolClient, join: DebounceJoin, at: number): Promise<JoinedGroup> {
  const hash = groupKeyHash(join);
  const { rows } = await client.query<{ group_id: string; deliveries: number; bytes: string; max_at: string }>(
    "SELECT group_id, deliveries, bytes, max_at FROM debounce_groups WHERE key_hash = $1 AND status = 'open' AND fire_at > $2 ORDER BY created_at DESC LIMIT 1 FOR UPDATE",
    [hash, at],
  );
  const open = rows[0];
  const member = storedMember(join);
  if (open !== undefined && takesMember(join, open, member.bytes)) {
    const firesAt = rearmed(join, { max_at: Number(open.max_at) }, at);
    const deliveries = Number(open.deliveries) + 1;
    await client.query('UPDATE debounce_groups SET deliveries = $2, fire_at = $3, bytes = $4 WHERE group_id = $1', [open.group_id, deliveries, firesAt, bytesAfterJoin(join, open, member.bytes)]);
    if (join.keep === 'last') await client.query('DELETE FROM debounce_members WHERE group_id = $1', [open.group_id]);
    await client.query('INSERT INTO debounce_members (group_id, seq, created_at, action) VALUES ($1, $2, $3, $4)', [open.group_id, deliveries, at, member.json]);
    return { groupId: open.group_id, opened: false, deliveries, firesAt };
  }
  // A full group is due now; its fire time no longer ahead, no later join goes into it.
  if (open !== undefined) await client.query('UPDATE debounce_groups SET fire_at = $2 WHERE group_id = $1', [open.group_id, at]);
  const groupId = groupIdOf(join);
  const { fireAt, maxAt } = openedGroup(join, at);
  await client.query(
    `INSERT INTO debounce_groups (group_id, key_hash, mapping_id, group_key, kind, keep, max_chars, status, deliveries, bytes, created_at, fire_at, max_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', 1, $8, $9, $10, $11)`,
    [groupId, hash, join.mappingId, shortKey(join.key), join.action.kind, join.keep, join.maxChars, member.bytes, at, fireAt, maxAt],
  );
  await client.query('INSERT INTO debounce_members (group_id, seq, created_at, action) VALUES ($1, 1, $2, $3)', [groupId, at, member.json]);
  return { groupId, opened: true, deliveries: 1, firesAt: fireAt, ...(open === undefined ? {} : { closed: open.group_id }) };
}
