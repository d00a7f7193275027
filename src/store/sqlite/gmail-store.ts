import type { DatabaseSync } from 'node:sqlite';
import type { GmailStore } from '../port.js';
import { isGmailAdmitted, markGmailAdmitted, readAllGmailStates, readGmailState, upsertGmailColumn } from './gmail-queries.js';
import { writeWhenFree } from './write-when-free.js';

/**
 * The Gmail source's rows. `db` is opened on first use (most services watch no mailbox); its
 * writes never wait for the ingress writer's lock on the event loop (busy timeout 0 + writeWhenFree).
 */
export function createSqliteGmailStore(db: () => DatabaseSync, reads: DatabaseSync, now: () => number): GmailStore {
  const upsert = (account: string, column: Parameters<typeof upsertGmailColumn>[2], value: string | number | null): Promise<void> =>
    writeWhenFree(() => upsertGmailColumn(db(), account, column, value, now()));
  return {
    read: async (account) => readGmailState(db(), account),
    readAll: async () => readAllGmailStates(reads),
    async saveHistoryId(account, historyId) {
      const current = readGmailState(db(), account)?.historyId;
      if (current !== undefined && BigInt(current) >= BigInt(historyId)) return;
      await upsert(account, 'history_id', historyId);
    },
    async saveWatch(account, expiration, mode) {
      await upsert(account, 'watch_expiration', expiration);
      await upsert(account, 'mode', mode);
    },
    saveError: (account, error) => upsert(account, 'last_error', error ?? null),
    isAdmitted: async (account, messageId) => isGmailAdmitted(db(), account, messageId),
    markAdmitted: (account, messageId) => writeWhenFree(() => markGmailAdmitted(db(), account, messageId, now())),
  };
}
