import type { DatabaseSync } from 'node:sqlite';
import type { AcceptedResponse } from '../../actions/types.js';
import { idempotencyConflict } from '../acceptance-outcomes.js';
import { debouncedResponse, type DebounceAcceptance, type DebounceJoin, type DebounceOutcome, type DebounceStore, type JoinedGroup } from '../debounce-port.js';
import { dueGroup, GROUP_COLUMNS, groupIdOf, groupKeyHash, groupView, openedGroup, rearmed, shortKey, type GroupRow } from '../debounce-rows.js';
import { inTransaction, prepareCached } from './connection.js';
import { writeWhenFree } from './write-when-free.js';
import { rateHitInTransaction } from './rate-hits.js';

/**
 * Debounce groups on SQLite. Joins commit on their own connection with the configured durability
 * (a joined delivery is acknowledged only once durable, like an acceptance). Claims lapse with
 * their lease as on PostgreSQL; the service's store also frees every claim at open (one process
 * owns the file, so a claim found then belongs to a process that is gone): releaseStaleClaims.
 */
export function createSqliteDebounce(db: () => DatabaseSync, reads: DatabaseSync, idempotencyTtlMs: number): DebounceStore {
  const batches = joinBatches((items) => writeWhenFree(() => inTransaction(db(), () => items.map((item) => joinAll(db(), item.acceptance, item.at, idempotencyTtlMs)))));
  return {
    async join(acceptance, at) {
      const outcome = await batches.enqueue({ acceptance, at });
      if (outcome.kind === 'conflict') throw idempotencyConflict();
      return outcome;
    },
    claimDue: (now, owner, leaseUntil, limit) =>
      writeWhenFree(() =>
        inTransaction(db(), () => {
          const due = prepareCached(
            db(),
            `SELECT ${GROUP_COLUMNS} FROM debounce_groups
              WHERE (status = 'open' AND fire_at <= ?) OR (status = 'firing' AND lease_until <= ?) ORDER BY fire_at LIMIT ?`,
          ).all(now, now, limit) as unknown as GroupRow[];
          return due.map((row) => {
            prepareCached(db(), "UPDATE debounce_groups SET status = 'firing', claimed_by = ?, lease_until = ? WHERE group_id = ?").run(owner, leaseUntil, row.group_id);
            const members = prepareCached(db(), 'SELECT action FROM debounce_members WHERE group_id = ? ORDER BY seq').all(row.group_id) as Array<{ action: string }>;
            return dueGroup(row, members.map((member) => member.action));
          });
        }),
      ),
    async fired(groupId, owner) {
      await writeWhenFree(() =>
        inTransaction(db(), () => {
          const removed = prepareCached(db(), "DELETE FROM debounce_groups WHERE group_id = ? AND status = 'firing' AND claimed_by = ?").run(groupId, owner);
          if (Number(removed.changes) > 0) prepareCached(db(), 'DELETE FROM debounce_members WHERE group_id = ?').run(groupId);
        }),
      );
    },
    async view(groupId) {
      const row = prepareCached(reads, `SELECT ${GROUP_COLUMNS} FROM debounce_groups WHERE group_id = ?`).get(groupId) as GroupRow | undefined;
      return row === undefined ? undefined : groupView(row);
    },
    listOpen: async (limit) => (prepareCached(reads, `SELECT ${GROUP_COLUMNS} FROM debounce_groups ORDER BY fire_at LIMIT ?`).all(limit) as unknown as GroupRow[]).map(groupView),
    countOpen: async () => Number((prepareCached(reads, 'SELECT COUNT(*) AS n FROM debounce_groups').get() as { n: number }).n),
    async nextFireAt() {
      const row = prepareCached(reads, "SELECT MIN(fire_at) AS at FROM debounce_groups WHERE status = 'open'").get() as { at: number | null };
      return row.at === null ? undefined : Number(row.at);
    },
  };
}

type JoinResult = DebounceOutcome | { kind: 'conflict' };
type JoinItem = { acceptance: DebounceAcceptance; at: number };

/**
 * Group commit for joins: those arriving in one turn of the event loop share one transaction (one
 * fsync), as acceptances do on the writer thread. Each join's key is judged before it writes
 * anything, so one conflict does not fail the others; a failed transaction fails every join in it.
 */
function joinBatches(commit: (items: JoinItem[]) => Promise<JoinResult[]>): { enqueue(item: JoinItem): Promise<JoinResult> } {
  let queue: Array<{ item: JoinItem; resolve: (result: JoinResult) => void; reject: (error: unknown) => void }> = [];
  let chain: Promise<void> = Promise.resolve();
  const flush = (): void => {
    const batch = queue;
    queue = [];
    chain = chain.then(async () => {
      try {
        const results = await commit(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.resolve(results[index] as JoinResult));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    });
  };
  return {
    enqueue: (item) =>
      new Promise((resolve, reject) => {
        if (queue.length === 0) setImmediate(flush);
        queue.push({ item, resolve, reject });
      }),
  };
}

function joinAll(db: DatabaseSync, acceptance: DebounceAcceptance, at: number, ttlMs: number): JoinResult {
  const { idempotency } = acceptance;
  if (idempotency !== undefined) {
    const row = prepareCached(db, 'SELECT fingerprint, response FROM idempotency WHERE key = ? AND created_at > ?').get(idempotency.key, at - ttlMs) as { fingerprint: string; response: string } | undefined;
    if (row !== undefined) return row.fingerprint === idempotency.fingerprint ? { kind: 'replayed', response: JSON.parse(row.response) as AcceptedResponse } : { kind: 'conflict' };
  }
  if (acceptance.rateHit !== undefined) {
    const verdict = rateHitInTransaction(db, acceptance.rateHit);
    if (!verdict.allowed) return { kind: 'rate-limited', retryAfterMs: verdict.retryAfterMs };
  }
  const groups = acceptance.joins.map((join) => joinOne(db, join, at));
  const response = debouncedResponse(acceptance.joins, groups.map((group) => group.groupId));
  if (idempotency !== undefined) {
    prepareCached(db, 'INSERT OR REPLACE INTO idempotency (key, created_at, fingerprint, response) VALUES (?, ?, ?, ?)').run(idempotency.key, at, idempotency.fingerprint, JSON.stringify(response));
  }
  return { kind: 'committed', response, groups };
}

function joinOne(db: DatabaseSync, join: DebounceJoin, at: number): JoinedGroup {
  const hash = groupKeyHash(join);
  const open = prepareCached(db, "SELECT group_id, deliveries, max_at FROM debounce_groups WHERE key_hash = ? AND status = 'open' AND fire_at > ? ORDER BY created_at DESC LIMIT 1").get(hash, at) as
    | { group_id: string; deliveries: number; max_at: number }
    | undefined;
  const member = JSON.stringify(join.action);
  if (open !== undefined) {
    const firesAt = rearmed(join, open, at);
    const deliveries = Number(open.deliveries) + 1;
    prepareCached(db, 'UPDATE debounce_groups SET deliveries = ?, fire_at = ? WHERE group_id = ?').run(deliveries, firesAt, open.group_id);
    // keep "last" needs only the newest action: the older ones are dropped as it arrives.
    if (join.keep === 'last') prepareCached(db, 'DELETE FROM debounce_members WHERE group_id = ?').run(open.group_id);
    prepareCached(db, 'INSERT INTO debounce_members (group_id, seq, created_at, action) VALUES (?, ?, ?, ?)').run(open.group_id, deliveries, at, member);
    return { groupId: open.group_id, opened: false, deliveries, firesAt };
  }
  const groupId = groupIdOf(join);
  const { fireAt, maxAt } = openedGroup(join, at);
  prepareCached(
    db,
    `INSERT INTO debounce_groups (group_id, key_hash, mapping_id, group_key, kind, keep, max_chars, status, deliveries, created_at, fire_at, max_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'open', 1, ?, ?, ?)`,
  ).run(groupId, hash, join.mappingId, shortKey(join.key), join.action.kind, join.keep, join.maxChars, at, fireAt, maxAt);
  prepareCached(db, 'INSERT INTO debounce_members (group_id, seq, created_at, action) VALUES (?, 1, ?, ?)').run(groupId, at, member);
  return { groupId, opened: true, deliveries: 1, firesAt: fireAt };
}

/** At the service's start: groups a previous process was firing are open (and due) again. */
export function releaseStaleClaims(db: DatabaseSync): void {
  db.exec("UPDATE debounce_groups SET status = 'open', claimed_by = NULL, lease_until = NULL WHERE status = 'firing'");
}
