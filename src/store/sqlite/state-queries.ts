import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './sqlite.js';

/** Queries on `transcripts`, `state` and `deliveries`: what sessions remember and where replies went. */

export interface TranscriptMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The newest messages of a session whose contents fit maxChars, oldest first. Older turns are
 * dropped whole, and the result never starts with an assistant reply whose question was dropped.
 */
export function readTranscript(db: DatabaseSync, sessionKey: string, maxChars: number): TranscriptMessage[] {
  const rows = db
    .prepare('SELECT role, content FROM transcripts WHERE session_key = ? ORDER BY seq DESC')
    .iterate(sessionKey) as Iterable<TranscriptMessage>;
  const kept: TranscriptMessage[] = [];
  let used = 0;
  for (const row of rows) {
    if (used + row.content.length > maxChars) break;
    used += row.content.length;
    kept.push({ role: row.role, content: row.content });
  }
  kept.reverse();
  while (kept[0]?.role === 'assistant') kept.shift();
  return kept;
}

/** Appends one exchange (question and reply) to a session's transcript. */
export function appendExchange(db: DatabaseSync, sessionKey: string, user: string, assistant: string, at: number): void {
  const row = prepareCached(db, 'SELECT COALESCE(MAX(seq), 0) AS seq FROM transcripts WHERE session_key = ?').get(sessionKey) as { seq: number };
  const insert = prepareCached(db, 'INSERT INTO transcripts (session_key, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?)');
  insert.run(sessionKey, row.seq + 1, 'user', user, at);
  insert.run(sessionKey, row.seq + 2, 'assistant', assistant, at);
}

export function getState(db: DatabaseSync, key: string): string | undefined {
  const row = prepareCached(db, 'SELECT value FROM state WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function setState(db: DatabaseSync, key: string, value: string): void {
  prepareCached(db, 'INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

export interface DeliveryRecord {
  at: number;
  runId?: string;
  heartbeatId?: number;
  channel: string;
  recipient?: string;
  status: 'delivered' | 'failed' | 'skipped';
  /** Kept only for the `log` channel, whose whole point is keeping the text in the store. */
  text?: string;
  reason?: string;
}

export function insertDelivery(db: DatabaseSync, record: DeliveryRecord): void {
  prepareCached(db, 
    'INSERT INTO deliveries (created_at, run_id, heartbeat_id, channel, recipient, status, text, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    record.at,
    record.runId ?? null,
    record.heartbeatId ?? null,
    record.channel,
    record.recipient ?? null,
    record.status,
    record.text ?? null,
    record.reason ?? null,
  );
}
