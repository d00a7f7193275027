import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
import { fitTranscript } from '../row-views.js';
import type { DeliveryRecord, StoredRoute, TranscriptMessage } from '../port-types.js';

/** SQL on `transcripts`, `state` and `deliveries`: what sessions remember and where replies went. */

const LAST_ROUTE_KEY = 'last_route';
const lastToKey = (channel: string): string => `last_to:${channel}`;

/**
 * The newest messages of a session whose contents fit maxChars, oldest first. Older turns are
 * dropped whole, and the result never starts with an assistant reply whose question was dropped.
 */
export function readTranscript(db: DatabaseSync, sessionKey: string, maxChars: number): TranscriptMessage[] {
  const rows = prepareCached(db, 'SELECT role, content FROM transcripts WHERE session_key = ? ORDER BY seq DESC').iterate(sessionKey) as Iterable<TranscriptMessage>;
  return fitTranscript(rows, maxChars);
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

/** Stores `value` unless the key has one; returns the stored value. */
export function claimState(db: DatabaseSync, key: string, value: string): string {
  prepareCached(db, 'INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING').run(key, value);
  return getState(db, key) ?? value;
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

/** A heartbeat's successful route: the main session's last route and the channel's last recipient. */
export function rememberRoute(db: DatabaseSync, route: { channel: string; to: string }): void {
  setState(db, LAST_ROUTE_KEY, JSON.stringify({ channel: route.channel, to: route.to }));
  setState(db, lastToKey(route.channel), route.to);
}

export function readLastRoute(db: DatabaseSync): StoredRoute | undefined {
  const raw = getState(db, LAST_ROUTE_KEY);
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as { channel?: unknown; to?: unknown };
    if (typeof parsed.channel !== 'string') return undefined;
    return typeof parsed.to === 'string' ? { channel: parsed.channel, to: parsed.to } : { channel: parsed.channel };
  } catch {
    return undefined;
  }
}

export function readLastRecipient(db: DatabaseSync, channel: string): string | undefined {
  return getState(db, lastToKey(channel));
}
