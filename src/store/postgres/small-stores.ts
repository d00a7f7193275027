import type pg from 'pg';
import type { DeliveryStore, GmailStore, StateStore, StoredRoute, TranscriptMessage, TranscriptStore } from '../port.js';
import { fitTranscript, toGmailState, type GmailStateViewRow } from '../row-views.js';
import { query, transaction } from './sql.js';
import { insertDelivery, setState } from './session-writes.js';

/** Transcripts, deliveries, shared state and the Gmail source's bookkeeping on PostgreSQL. */

const LAST_ROUTE_KEY = 'last_route';

export function createPostgresTranscripts(pool: pg.Pool): TranscriptStore {
  return {
    async read(sessionKey, maxChars) {
      // Newest first; whole exchanges are dropped from the old end, as the SQLite adapter does.
      const { rows } = await query<TranscriptMessage>(pool, 'SELECT role, content FROM transcripts WHERE session_key = $1 ORDER BY seq DESC', [sessionKey]);
      return fitTranscript(rows, maxChars);
    },
  };
}

export function createPostgresDeliveries(pool: pg.Pool): DeliveryStore {
  const get = (key: string) => readState(pool, key);
  return {
    record: (record, remember) =>
      transaction(pool, async (client) => {
        await insertDelivery(client, record);
        if (remember === undefined) return;
        await setState(client, LAST_ROUTE_KEY, JSON.stringify({ channel: remember.channel, to: remember.to }));
        await setState(client, `last_to:${remember.channel}`, remember.to);
      }),
    async lastRoute() {
      const raw = await get(LAST_ROUTE_KEY);
      if (raw === undefined) return undefined;
      try {
        const route = JSON.parse(raw) as Partial<StoredRoute>;
        if (typeof route.channel !== 'string') return undefined;
        return typeof route.to === 'string' ? { channel: route.channel, to: route.to } : { channel: route.channel };
      } catch {
        return undefined;
      }
    },
    lastRecipient: (channel) => get(`last_to:${channel}`),
  };
}

export function createPostgresState(pool: pg.Pool): StateStore {
  return {
    get: (key) => readState(pool, key),
    set: (key, value) => query(pool, 'INSERT INTO state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [key, value]).then(() => undefined),
    claim: async (key, value) => {
      await query(pool, 'INSERT INTO state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
      return (await readState(pool, key)) ?? value;
    },
  };
}

async function readState(pool: pg.Pool, key: string): Promise<string | undefined> {
  const { rows } = await query<{ value: string }>(pool, 'SELECT value FROM state WHERE key = $1', [key]);
  return rows[0]?.value;
}

export function createPostgresGmail(pool: pg.Pool, now: () => number): GmailStore {
  const upsert = (account: string, column: 'watch' | 'error', values: unknown[]) => {
    const set = column === 'watch' ? 'watch_expiration = $3, mode = $4' : 'last_error = $3';
    const insert = column === 'watch' ? '(account, updated_at, watch_expiration, mode) VALUES ($1, $2, $3, $4)' : '(account, updated_at, last_error) VALUES ($1, $2, $3)';
    return query(pool, `INSERT INTO gmail_state ${insert} ON CONFLICT (account) DO UPDATE SET ${set}, updated_at = $2`, [account, now(), ...values]).then(() => undefined);
  };
  return {
    async read(account) {
      const { rows } = await query<GmailStateViewRow>(pool, 'SELECT * FROM gmail_state WHERE account = $1', [account]);
      return rows[0] === undefined ? undefined : toGmailState(rows[0]);
    },
    async readAll() {
      const { rows } = await query<GmailStateViewRow>(pool, 'SELECT * FROM gmail_state ORDER BY account');
      return rows.map(toGmailState);
    },
    async saveHistoryId(account, historyId) {
      // Never backwards: history ids are decimal strings of up to 20 digits, compared as numbers.
      await query(
        pool,
        `INSERT INTO gmail_state (account, history_id, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (account) DO UPDATE SET updated_at = $3,
           history_id = CASE WHEN gmail_state.history_id IS NULL OR $2::numeric > gmail_state.history_id::numeric THEN $2 ELSE gmail_state.history_id END`,
        [account, historyId, now()],
      );
    },
    saveWatch: (account, expiration, mode) => upsert(account, 'watch', [expiration, mode]),
    saveError: (account, error) => upsert(account, 'error', [error ?? null]),
    async isAdmitted(account, messageId) {
      const { rows } = await query(pool, 'SELECT 1 FROM gmail_messages WHERE account = $1 AND message_id = $2', [account, messageId]);
      return rows.length > 0;
    },
    async markAdmitted(account, messageId) {
      await query(pool, 'INSERT INTO gmail_messages (account, message_id, admitted_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [account, messageId, now()]);
    },
  };
}
