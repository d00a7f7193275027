import type { DatabaseSync } from 'node:sqlite';
import { openDatabase, prepareCached } from '../../store/sqlite.js';
import { writeWhenFree } from '../../store/write-when-free.js';

/** What the watcher keeps per mailbox, read by `hookgate status` too. */
export interface GmailStateRow {
  account: string;
  historyId: string | undefined;
  watchExpiration: number | undefined;
  mode: string | undefined;
  lastError: string | undefined;
  updatedAt: number;
}

export interface GmailState {
  read(account: string): GmailStateRow | undefined;
  /** Records the history id every message up to which is admitted; never moves backwards. */
  saveHistoryId(account: string, historyId: string): Promise<void>;
  saveWatch(account: string, expiration: number, mode: string): Promise<void>;
  saveError(account: string, error: string | undefined): Promise<void>;
  isAdmitted(account: string, messageId: string): boolean;
  markAdmitted(account: string, messageId: string): Promise<void>;
  close(): void;
}

/**
 * The Gmail source's rows (migration 2) on a connection of its own. Writes never wait for the
 * ingress writer's lock on the event loop (busy timeout 0 + writeWhenFree, as the runtime does).
 */
export function openGmailState(path: string, options: { synchronous: 'full' | 'normal'; now?: () => number }): GmailState {
  const db = openDatabase(path, { synchronous: options.synchronous });
  db.exec('PRAGMA busy_timeout = 0');
  return createGmailState(db, options.now ?? Date.now, () => db.close());
}

export function createGmailState(db: DatabaseSync, now: () => number, close: () => void = () => undefined): GmailState {
  const upsert = (account: string, column: string, value: string | number | null) =>
    writeWhenFree(() =>
      prepareCached(
        db,
        `INSERT INTO gmail_state (account, ${column}, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(account) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      ).run(account, value, now()),
    ).then(() => undefined);
  return {
    read: (account) => readGmailState(db, account),
    async saveHistoryId(account, historyId) {
      const current = readGmailState(db, account)?.historyId;
      if (current !== undefined && BigInt(current) >= BigInt(historyId)) return;
      await upsert(account, 'history_id', historyId);
    },
    async saveWatch(account, expiration, mode) {
      await upsert(account, 'watch_expiration', expiration);
      await upsert(account, 'mode', mode);
    },
    saveError: (account, error) => upsert(account, 'last_error', error ?? null),
    isAdmitted: (account, messageId) =>
      prepareCached(db, 'SELECT 1 FROM gmail_messages WHERE account = ? AND message_id = ?').get(account, messageId) !== undefined,
    async markAdmitted(account, messageId) {
      await writeWhenFree(() =>
        prepareCached(db, 'INSERT OR IGNORE INTO gmail_messages (account, message_id, admitted_at) VALUES (?, ?, ?)').run(account, messageId, now()),
      );
    },
    close,
  };
}

interface Row {
  account: string;
  history_id: string | null;
  watch_expiration: number | null;
  mode: string | null;
  last_error: string | null;
  updated_at: number;
}

/** Every mailbox's row, or one; `hookgate status` reads these from its own connection. */
export function readGmailState(db: DatabaseSync, account: string): GmailStateRow | undefined {
  const row = db.prepare('SELECT * FROM gmail_state WHERE account = ?').get(account) as Row | undefined;
  return row === undefined ? undefined : toView(row);
}

export function readAllGmailStates(db: DatabaseSync): GmailStateRow[] {
  return (db.prepare('SELECT * FROM gmail_state ORDER BY account').all() as unknown as Row[]).map(toView);
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
