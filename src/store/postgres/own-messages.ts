import type pg from 'pg';
import type { OwnMessageStore } from '../port.js';
import { query, transaction } from './sql.js';

/** The service's own messages on PostgreSQL, shared by every instance. */
export function createPostgresOwnMessages(pool: pg.Pool): OwnMessageStore {
  return {
    remember: (channel, marks, at) =>
      transaction(pool, async (client) => {
        await query(client, 'DELETE FROM own_messages WHERE expires_at <= $1', [at]);
        for (const { mark, keepMs } of marks) {
          await query(
            client,
            'INSERT INTO own_messages (channel, mark, expires_at) VALUES ($1, $2, $3) ON CONFLICT (channel, mark) DO UPDATE SET expires_at = GREATEST(own_messages.expires_at, EXCLUDED.expires_at)',
            [channel, mark, at + keepMs],
          );
        }
      }),
    async includesAny(channel, marks, at) {
      if (marks.length === 0) return false;
      const { rows } = await query(pool, 'SELECT 1 FROM own_messages WHERE channel = $1 AND mark = ANY($2::text[]) AND expires_at > $3 LIMIT 1', [channel, [...marks], at]);
      return rows.length > 0;
    },
  };
}
