import type { DatabaseSync } from 'node:sqlite';
import type { AdmittedAction } from '../../actions/types.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { idempotencyConflict } from '../acceptance-outcomes.js';
import type { DebounceStore } from '../debounce-port.js';
import { dueGroup, earliestLook, GROUP_COLUMNS, groupKeyHash, groupMember, groupView, NEXT_LOOK_SQL, storedMember, takesMember, type GroupRow } from '../debounce-rows.js';
import { inTransaction, prepareCached } from './connection.js';
import { writeWhenFree } from './write-when-free.js';
import { listPendingRuns } from './pending-run-queries.js';
import { OPEN_GROUP_OF_KEY, type JoinItem, type JoinResult } from './debounce-join.js';

/** Members removed per write when a fired group ends. */
const MEMBER_SLICE = 16;
const DELETE_MEMBER_SLICE = `DELETE FROM debounce_members WHERE group_id = ? AND seq IN (SELECT seq FROM debounce_members WHERE group_id = ? ORDER BY seq LIMIT ?)
  AND EXISTS (SELECT 1 FROM debounce_groups WHERE group_id = ? AND status = 'firing' AND claimed_by = ?)`;

/**
 * Debounce groups on SQLite. Joins commit on the ingress writer thread (debounce-join.ts), with
 * the configured durability and off the event loop, like acceptances: a joined delivery is
 * acknowledged only once durable. Claims lapse with their lease as on PostgreSQL; the service's
 * store also frees every claim at open (one process owns the file, so a claim found then belongs
 * to a process that is gone): releaseStaleClaims.
 *
 * `joinOnWriter` commits a batch of joins in one transaction of the writer's (the ingress's `join`).
 */
export function createSqliteDebounce(joinOnWriter: (items: JoinItem[]) => Promise<JoinResult[]>, db: () => DatabaseSync, reads: DatabaseSync): DebounceStore {
  const batches = joinBatches(joinOnWriter);
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
            const stored = prepareCached(db(), 'SELECT COUNT(*) AS n FROM debounce_members WHERE group_id = ?').get(row.group_id) as { n: number };
            return dueGroup(row, stored.n);
          });
        }),
      ),
    async newestMember(groupId) {
      const row = prepareCached(reads, 'SELECT action FROM debounce_members WHERE group_id = ? ORDER BY seq DESC LIMIT 1').get(groupId) as { action: string } | undefined;
      return row === undefined ? undefined : (JSON.parse(row.action) as AdmittedAction);
    },
    members: async (groupId, afterSeq, limit) =>
      (prepareCached(reads, 'SELECT seq, action FROM debounce_members WHERE group_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(groupId, afterSeq, limit) as Array<{ seq: number; action: string }>).map(groupMember),
    async fired(groupId, owner) {
      // The members first, a slice per write with the event loop free in between: a group an older
      // version stored without bounds is removed without one long write blocking every request.
      // Its action is committed, so a crash part-way leaves a group whose next firing is a replay.
      while (Number((await writeWhenFree(() => prepareCached(db(), DELETE_MEMBER_SLICE).run(groupId, groupId, MEMBER_SLICE, groupId, owner))).changes) === MEMBER_SLICE) await nextTurn();
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
    listPendingRuns: async (filter) => listPendingRuns(reads, filter),
    countOpen: async () => Number((prepareCached(reads, 'SELECT COUNT(*) AS n FROM debounce_groups').get() as { n: number }).n),
    joinsOpenGroup: async (joins, at) =>
      joins.map((join) => {
        const open = prepareCached(reads, OPEN_GROUP_OF_KEY).get(groupKeyHash(join), at) as { deliveries: number; bytes: number } | undefined;
        return open !== undefined && takesMember(join, open, storedMember(join).bytes);
      }),
    async nextFireAt() {
      return earliestLook(prepareCached(reads, NEXT_LOOK_SQL).get() as { open_at: number | null; lease_at: number | null });
    },
  };
}


/**
 * Group commit for joins: one batch on the writer at a time, and every join that arrives while it
 * commits leaves with the next one, so batches (and the joins per fsync) grow with the load. Each
 * join's key is judged before it writes anything, so one conflict does not fail the others; a
 * failed transaction fails every join in it.
 */
function joinBatches(commit: (items: JoinItem[]) => Promise<JoinResult[]>): { enqueue(item: JoinItem): Promise<JoinResult> } {
  let queue: Array<{ item: JoinItem; resolve: (result: JoinResult) => void; reject: (error: unknown) => void }> = [];
  let inFlight = false;
  const send = (): void => {
    if (inFlight || queue.length === 0) return;
    const batch = queue;
    queue = [];
    inFlight = true;
    commit(batch.map((entry) => entry.item))
      .then(
        (results) => batch.forEach((entry, index) => entry.resolve(results[index] as JoinResult)),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        inFlight = false;
        send();
      });
  };
  return {
    enqueue: (item) =>
      new Promise((resolve, reject) => {
        queue.push({ item, resolve, reject });
        // The first of a turn waits for the turn's other arrivals.
        if (!inFlight && queue.length === 1) setImmediate(send);
      }),
  };
}

/** Pending groups that will each become a run (QueueDepths.runs.debounced). */
export function countPendingGroupRuns(db: DatabaseSync): number {
  return Number((prepareCached(db, "SELECT COUNT(*) AS n FROM debounce_groups WHERE kind <> 'wake'").get() as { n: number }).n);
}

/** At the service's start: groups a previous process was firing are open (and due) again. */
export function releaseStaleClaims(db: DatabaseSync): void {
  db.exec("UPDATE debounce_groups SET status = 'open', claimed_by = NULL, lease_until = NULL WHERE status = 'firing'");
}
