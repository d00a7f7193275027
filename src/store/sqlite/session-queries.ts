import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
import type { HeartbeatFinish, HeartbeatRow, NewEvent, PendingEvent, RecordedDelivery } from '../port-types.js';
import { appendExchange, insertDelivery } from './state-queries.js';

/** SQL on the main session's `events` and `heartbeats` tables. Synchronous; the adapter wraps them. */

/**
 * The oldest pending events, in arrival order; with maxChars, none after the first whose text takes
 * the total past it. Rows are read one at a time and the read stops there: a heartbeat's budget holds
 * a few events when each is a kilobyte, and reading the whole `limit` took ~30 times the memory.
 */
export function listPendingEvents(db: DatabaseSync, limit: number, maxChars = Infinity): PendingEvent[] {
  const events: PendingEvent[] = [];
  let chars = 0;
  const rows = prepareCached(db, "SELECT id, created_at, text, mode, trusted FROM events WHERE status = 'pending' ORDER BY id LIMIT ?").iterate(limit);
  for (const row of rows as Iterable<PendingEvent>) {
    events.push(row);
    chars += row.text.length;
    if (chars > maxChars) break;
  }
  return events;
}

export function countPendingEvents(db: DatabaseSync, createdUpTo?: number): number {
  const row = (
    createdUpTo === undefined
      ? prepareCached(db, "SELECT COUNT(*) AS n FROM events WHERE status = 'pending'").get()
      : prepareCached(db, "SELECT COUNT(*) AS n FROM events WHERE status = 'pending' AND created_at <= ?").get(createdUpTo)
  ) as { n: number };
  return row.n;
}

export function newestPendingEventId(db: DatabaseSync): number {
  const row = prepareCached(db, "SELECT COALESCE(MAX(id), 0) AS id FROM events WHERE status = 'pending'").get() as { id: number };
  return row.id;
}

/** Whether events are still pending that are due now: mode `now`, or already pending when a heartbeat began (id ≤ dueUpTo). */
export function hasDueEvents(db: DatabaseSync, dueUpTo: number): boolean {
  return prepareCached(db, "SELECT 1 FROM events WHERE status = 'pending' AND (mode = 'now' OR id <= ?) LIMIT 1").get(dueUpTo) !== undefined;
}

export function insertEvent(db: DatabaseSync, event: NewEvent): number {
  const result = prepareCached(db, 'INSERT INTO events (created_at, text, mode, hook, mapping_id, run_id) VALUES (?, ?, ?, ?, ?, ?)').run(
    event.at,
    event.text,
    event.mode,
    event.hook,
    event.mappingId ?? null,
    event.runId ?? null,
  );
  return Number(result.lastInsertRowid);
}

/** pending → consumed, only rows still pending (a consumed event is never consumed twice); the ids this call consumed. */
export function consumeEvents(db: DatabaseSync, ids: readonly number[], heartbeatId: number, at: number): number[] {
  const statement = prepareCached(db, "UPDATE events SET status = 'consumed', heartbeat_id = ?, consumed_at = ? WHERE id = ? AND status = 'pending'");
  return ids.filter((id) => Number(statement.run(heartbeatId, at, id).changes) === 1);
}

export function startHeartbeat(db: DatabaseSync, at: number, eventCount: number): number {
  const result = prepareCached(db, "INSERT INTO heartbeats (started_at, status, event_count) VALUES (?, 'running', ?)").run(at, eventCount);
  return Number(result.lastInsertRowid);
}

/** The heartbeat's end and, on ok, what is recorded with it: the caller holds the transaction. */
export function finishHeartbeat(db: DatabaseSync, id: number, end: HeartbeatFinish): number[] {
  const update = prepareCached(db, 'UPDATE heartbeats SET status = ?, finished_at = ?, reply = ?, error = ? WHERE id = ?');
  if (end.status === 'error') {
    update.run('error', end.at, null, end.error, id);
    return [];
  }
  const consumed = consumeEvents(db, end.consume, id, end.at);
  appendExchange(db, end.exchange.sessionKey, end.exchange.user, end.exchange.assistant, end.at);
  update.run('ok', end.at, end.reply, null, id);
  if (end.skipped !== undefined) {
    insertDelivery(db, { at: end.at, heartbeatId: id, channel: end.skipped.channel, status: 'skipped', reason: end.skipped.reason });
    setHeartbeatDelivery(db, id, { status: 'skipped', reason: end.skipped.reason });
  }
  return consumed;
}

export function setHeartbeatDelivery(db: DatabaseSync, id: number, delivery: RecordedDelivery): void {
  prepareCached(db, 'UPDATE heartbeats SET delivery = ? WHERE id = ?').run(JSON.stringify(delivery), id);
}

/** Heartbeats a previous process left running: their events are still pending, the turn is recorded as failed. */
export function closeAbandonedHeartbeats(db: DatabaseSync, at: number): number {
  const result = prepareCached(db, "UPDATE heartbeats SET status = 'error', finished_at = ?, error = 'interrupted by a restart' WHERE status = 'running'").run(at);
  return Number(result.changes);
}

export function lastHeartbeat(db: DatabaseSync): HeartbeatRow | undefined {
  return prepareCached(db, 'SELECT id, started_at, finished_at, status, event_count, error, delivery FROM heartbeats ORDER BY id DESC LIMIT 1').get() as
    | HeartbeatRow
    | undefined;
}
