import type { DatabaseSync } from 'node:sqlite';
import type { OwnMessageStore } from '../port.js';
import { inTransaction, prepareCached } from './connection.js';
import { writeWhenFree } from './write-when-free.js';

const REMEMBER =
  'INSERT INTO own_messages (channel, mark, expires_at) VALUES (?, ?, ?) ON CONFLICT (channel, mark) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)';

/** The service's own messages on SQLite: written on the runtime's connection, read on `reads` (admission). */
export function createSqliteOwnMessages(db: DatabaseSync, reads: DatabaseSync): OwnMessageStore {
  return {
    remember: (channel, marks, at) =>
      writeWhenFree(() =>
        inTransaction(db, () => {
          prepareCached(db, 'DELETE FROM own_messages WHERE expires_at <= ?').run(at);
          for (const { mark, keepMs } of marks) prepareCached(db, REMEMBER).run(channel, mark, at + keepMs);
        }),
      ),
    async includesAny(channel, marks, at) {
      if (marks.length === 0) return false;
      const statement = prepareCached(reads, 'SELECT 1 AS found FROM own_messages WHERE channel = ? AND mark = ? AND expires_at > ?');
      return marks.some((mark) => statement.get(channel, mark, at) !== undefined);
    },
  };
}
