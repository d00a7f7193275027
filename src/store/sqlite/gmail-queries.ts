import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
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

interface Row {
  account: string;
  history_id: string | null;
  watch_expiration: number | null;
  mode: string | null;
  last_error: string | null;
  updated_at: number;
}

export function readGmailState(db: DatabaseSync, account: string): GmailStateRow | undefined {
  const row = prepareCached(db, 'SELECT * FROM gmail_state WHERE account = ?').get(account) as Row | undefined;
  return row === undefined ? undefined : toView(row);
}

export function readAllGmailStates(db: DatabaseSync): GmailStateRow[] {
  return (prepareCached(db, 'SELECT * FROM gmail_state ORDER BY account').all() as unknown as Row[]).map(toView);
}

function toView(row: Row): GmailStateRow {
  return {
    account: row.account,
    historyId: row.history_id ?? undefined,
    watchExpiration: row.watch_expiration ?? undefined,
    mode: row.mode ?? undefined,
    lastError: row.last_error ?? undefined,
    updatedAt: row.updated_at,
  };
}
