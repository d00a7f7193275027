import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
import { toGmailState, type GmailStateViewRow } from '../row-views.js';
import type { GmailStateRow } from '../port-types.js';

/** SQL on the Gmail source's tables (migration 4): where each mailbox resumes, which messages were admitted. */

type GmailColumn = 'history_id' | 'watch_expiration' | 'mode' | 'last_error';

export function upsertGmailColumn(db: DatabaseSync, account: string, column: GmailColumn, value: string | number | null, at: number): void {
  prepareCached(
    db,
    `INSERT INTO gmail_state (account, ${column}, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(account) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
  ).run(account, value, at);
}

export function isGmailAdmitted(db: DatabaseSync, account: string, messageId: string): boolean {
  return prepareCached(db, 'SELECT 1 FROM gmail_messages WHERE account = ? AND message_id = ?').get(account, messageId) !== undefined;
}

export function markGmailAdmitted(db: DatabaseSync, account: string, messageId: string, at: number): void {
  prepareCached(db, 'INSERT OR IGNORE INTO gmail_messages (account, message_id, admitted_at) VALUES (?, ?, ?)').run(account, messageId, at);
}

export function readGmailState(db: DatabaseSync, account: string): GmailStateRow | undefined {
  const row = prepareCached(db, 'SELECT * FROM gmail_state WHERE account = ?').get(account) as GmailStateViewRow | undefined;
  return row === undefined ? undefined : toGmailState(row);
}

export function readAllGmailStates(db: DatabaseSync): GmailStateRow[] {
  return (prepareCached(db, 'SELECT * FROM gmail_state ORDER BY account').all() as unknown as GmailStateViewRow[]).map(toGmailState);
}
