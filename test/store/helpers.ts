import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AcceptedResponse, AgentAction, WakeAction } from '../../src/actions/types.js';
import { createLogger } from '../../src/log.js';
import type { Acceptance, IngressStore } from '../../src/store/port.js';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { createSqliteIngress, type SqliteIngressOptions } from '../../src/store/sqlite/ingress.js';
import { writerFaults, type WriterFaults } from './support/writer-faults.js';

export interface StoreFixture {
  path: string;
  /** The main connection the store reads from (as the service's). */
  db: DatabaseSync;
  store: IngressStore;
  /** Fault injection into its writer thread, and its commit count. */
  faults: WriterFaults;
  logs: Array<Record<string, unknown>>;
  /** A fresh connection's answer: what is really in the file, not in any connection's cache. */
  count(sql: string, ...params: string[]): number;
  dispose(): Promise<void>;
}

/** A real SQLite file in a fresh temp dir, its main connection and an ingress store on it. */
export function storeFixture(options: Partial<SqliteIngressOptions> = {}): StoreFixture {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-store-'));
  const path = join(dir, 'hookgate.sqlite');
  const db = openDatabase(path, { synchronous: 'full' });
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
  const faults = writerFaults();
  const store = createSqliteIngress(db, {
    path,
    synchronous: 'full',
    idempotencyTtlMs: 60_000,
    now: Date.now,
    logger,
    warmUp: true,
    seams: faults.seams,
    ...options,
  });
  return {
    path,
    db,
    store,
    faults,
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
