import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AcceptedResponse, AgentAction, WakeAction } from '../../src/actions/types.js';
import { createLogger } from '../../src/log.js';
import { createIngressStore, type IngressStoreOptions, type SqliteIngressStore } from '../../src/store/ingress-sqlite.js';
import { openDatabase } from '../../src/store/sqlite.js';
import type { Acceptance } from '../../src/store/store.js';

export interface StoreFixture {
  path: string;
  /** The main connection the store reads from (as the service's). */
  db: DatabaseSync;
  store: SqliteIngressStore;
  logs: Array<Record<string, unknown>>;
  /** A fresh connection's answer: what is really in the file, not in any connection's cache. */
  count(sql: string, ...params: string[]): number;
  dispose(): Promise<void>;
}

/** A real SQLite file in a fresh temp dir, its main connection and an ingress store on it. */
export function storeFixture(options: Partial<IngressStoreOptions> = {}): StoreFixture {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-store-'));
  const path = join(dir, 'hookgate.sqlite');
  const db = openDatabase(path, { synchronous: 'full' });
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
  const store = createIngressStore(db, { idempotencyTtlMs: 60_000, logger, ...options });
  return {
    path,
    db,
    store,
    get logs() {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    count(sql, ...params) {
      const fresh = new DatabaseSync(path, { readOnly: true });
      try {
        return Number((fresh.prepare(sql).get(...params) as { n: number }).n);
      } finally {
        fresh.close();
      }
    },
    async dispose() {
      await store.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function wake(text: string): WakeAction {
  return { kind: 'wake', text, mode: 'next-heartbeat', origin: { hook: 'wake' } };
}

export function agent(message: string): AgentAction {
  const runId = randomUUID();
  return {
    kind: 'agent',
    runId,
    message,
    name: 'Test',
    sessionKey: `hook:${runId}`,
    wakeMode: 'next-heartbeat',
    deliver: false,
    channel: 'last',
    origin: { hook: 'agent' },
  };
}

/** A wake request as the handlers build it, with an optional idempotency key and fingerprint. */
export function wakeAcceptance(text: string, key?: string, fingerprint = `fp:${text}`): Acceptance {
  const response: AcceptedResponse = { status: 200, body: { ok: true, mode: 'next-heartbeat' } };
  return { actions: [wake(text)], response, ...(key === undefined ? {} : { idempotency: { key, fingerprint } }) };
}

export function agentAcceptance(message: string, key?: string): Acceptance {
  const action = agent(message);
  const response: AcceptedResponse = { status: 202, body: { ok: true, runId: action.runId } };
  return { actions: [action], response, ...(key === undefined ? {} : { idempotency: { key, fingerprint: `fp:${message}` } }) };
}

/** The rejection of a promise (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
