import type pg from 'pg';
import type { DeliveryRecord, NewEvent } from '../port.js';
import type { Queryable } from './sql.js';

/** Writes shared by several parts of the adapter, run inside the caller's transaction. */

export async function insertEvent(db: Queryable, event: NewEvent): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO events (created_at, text, mode, hook, mapping_id, run_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
    [event.at, event.text, event.mode, event.hook, event.mappingId ?? null, event.runId ?? null],
  );
  return (rows[0] as { id: number }).id;
}

/**
 * Appends a question and its reply to a session's transcript. Instances may append to the same
 * session at once: a transaction-scoped advisory lock per session key orders them, so the
 * sequence numbers never collide.
 */
export async function appendExchange(client: pg.PoolClient, exchange: { sessionKey: string; user: string; assistant: string }, at: number): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`hookgate.transcript.${exchange.sessionKey}`]);
  await client.query(
    `INSERT INTO transcripts (session_key, seq, role, content, created_at)
       SELECT $1, base.seq + o, r, c, $2
         FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM transcripts WHERE session_key = $1) AS base,
              unnest($3::text[], $4::text[]) WITH ORDINALITY AS u(r, c, o)`,
    [exchange.sessionKey, at, ['user', 'assistant'], [exchange.user, exchange.assistant]],
  );
}

export async function insertDelivery(db: Queryable, record: DeliveryRecord): Promise<void> {
  await db.query(
    'INSERT INTO deliveries (created_at, run_id, heartbeat_id, channel, recipient, status, text, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [record.at, record.runId ?? null, record.heartbeatId ?? null, record.channel, record.recipient ?? null, record.status, record.text ?? null, record.reason ?? null],
  );
}

export async function setState(db: Queryable, key: string, value: string): Promise<void> {
  await db.query('INSERT INTO state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [key, value]);
}
