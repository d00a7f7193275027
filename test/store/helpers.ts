import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createLogger } from '../../src/log.js';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { createSqliteIngress, type SqliteIngress, type SqliteIngressOptions } from '../../src/store/sqlite/ingress.js';
import { writerFaults, type WriterFaults } from './support/writer-faults.js';

export interface StoreFixture {
  path: string;
  /** The main connection the store reads from (as the service's). */
  db: DatabaseSync;
  store: SqliteIngress;
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

export { agent, agentAcceptance, rejectionOf, responseOf, wake, wakeAcceptance } from './acceptances.js';
