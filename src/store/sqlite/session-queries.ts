import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './sqlite.js';
import type { RecordedDelivery } from '../runtime/ports.js';

/** Queries on the main session's `events` and `heartbeats` tables. */

export interface PendingEvent {
  id: number;
  created_at: number;
  text: string;
  mode: 'now' | 'next-heartbeat';
  /** 1 only for text a mapping declared trusted; everything else goes inside the prompt's envelope. */
  trusted: number;
}

export interface NewEvent {
  at: number;
  text: string;
  mode: 'now' | 'next-heartbeat';
  hook: string;
  mappingId?: string;
  runId?: string;
}

/** The oldest pending events, in arrival order. */
export function listPendingEvents(db: DatabaseSync, limit: number): PendingEvent[] {
  return db
    .prepare("SELECT id, created_at, text, mode, trusted FROM events WHERE status = 'pending' ORDER BY id LIMIT ?")
    .all(limit) as unknown as PendingEvent[];
}

export function countPendingEvents(db: DatabaseSync): number {
  const row = prepareCached(db, "SELECT COUNT(*) AS n FROM events WHERE status = 'pending'").get() as { n: number };
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

export function insertEvent(db: DatabaseSync, event: NewEvent): void {
  prepareCached(db, 'INSERT INTO events (created_at, text, mode, hook, mapping_id, run_id) VALUES (?, ?, ?, ?, ?, ?)').run(
    event.at,
    event.text,
    event.mode,
    event.hook,
    event.mappingId ?? null,
    event.runId ?? null,
  );
}

/** pending → consumed, only rows still pending (a consumed event is never consumed twice). */
export function consumeEvents(db: DatabaseSync, ids: readonly number[], heartbeatId: number, at: number): void {
  const statement = prepareCached(db, "UPDATE events SET status = 'consumed', heartbeat_id = ?, consumed_at = ? WHERE id = ? AND status = 'pending'");
  for (const id of ids) statement.run(heartbeatId, at, id);
}

export function startHeartbeat(db: DatabaseSync, at: number, eventCount: number): number {
  const result = prepareCached(db, "INSERT INTO heartbeats (started_at, status, event_count) VALUES (?, 'running', ?)").run(at, eventCount);
  return Number(result.lastInsertRowid);
}

export interface HeartbeatEnd {
  status: 'ok' | 'error';
  at: number;
  reply?: string;
  error?: string;
}

export function finishHeartbeat(db: DatabaseSync, id: number, end: HeartbeatEnd): void {
  prepareCached(db, 'UPDATE heartbeats SET status = ?, finished_at = ?, reply = ?, error = ? WHERE id = ?').run(
    end.status,
    end.at,
    end.reply ?? null,
    end.error ?? null,
    id,
  );
}

export function setHeartbeatDelivery(db: DatabaseSync, id: number, delivery: RecordedDelivery): void {
  prepareCached(db, 'UPDATE heartbeats SET delivery = ? WHERE id = ?').run(JSON.stringify(delivery), id);
}

/** Heartbeats a previous process left running: their events are still pending, the turn is recorded as failed. */
export function closeAbandonedHeartbeats(db: DatabaseSync, at: number): number {
  const result = db
    .prepare("UPDATE heartbeats SET status = 'error', finished_at = ?, error = 'interrupted by a restart' WHERE status = 'running'")
    .run(at);
  return Number(result.changes);
}

export interface HeartbeatRow {
  id: number;
  started_at: number;
  finished_at: number | null;
  status: 'running' | 'ok' | 'error';
  event_count: number;
  error: string | null;
  delivery: string | null;
}

export function lastHeartbeat(db: DatabaseSync): HeartbeatRow | undefined {
  return db
    .prepare('SELECT id, started_at, finished_at, status, event_count, error, delivery FROM heartbeats ORDER BY id DESC LIMIT 1')
    .get() as HeartbeatRow | undefined;
}
