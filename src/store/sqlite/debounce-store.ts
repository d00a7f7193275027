import type { DatabaseSync } from 'node:sqlite';
import { idempotencyConflict } from '../acceptance-outcomes.js';
import type { DebounceStore } from '../debounce-port.js';
import { dueGroup, earliestLook, GROUP_COLUMNS, groupView, NEXT_LOOK_SQL, type GroupRow } from '../debounce-rows.js';
import { inTransaction, prepareCached } from './connection.js';
import { writeWhenFree } from './write-when-free.js';
import type { JoinItem, JoinResult } from './debounce-join.js';

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

/** At the service's start: groups a previous process was firing are open (and due) again. */
export function releaseStaleClaims(db: DatabaseSync): void {
  db.exec("UPDATE debounce_groups SET status = 'open', claimed_by = NULL, lease_until = NULL WHERE status = 'firing'");
}
