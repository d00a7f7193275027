import { existsSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { StoreMissingError, type Store, type StoreOptions } from '../port.js';
import { openDatabase, storePermissionProblems } from './connection.js';
import { createSqliteGmailStore } from './gmail-store.js';
import { countPendingGroupRuns, createSqliteDebounce, releaseStaleClaims } from './debounce-store.js';
import { createSqliteIngress, type SqliteStoreSeams } from './ingress.js';
import { createSqliteRunStore } from './run-store.js';
import { createSqliteLimitStore } from './limit-store.js';
import { createSqliteOwnMessages } from './own-message-store.js';
import { createSqliteRelayStore } from './relay-store.js';
import { countRunsWithStatus } from './run-queries.js';
import { countPendingEvents } from './session-queries.js';
import { countModelCalls } from './view-queries.js';
import { createSqliteDeliveries, createSqliteMainSession, createSqliteState, createSqliteTranscripts } from './session-store.js';

export interface SqliteSettings {
  /** The database file (storage.path). */
  path: string;
  /** storage.synchronous: the durability of ingress commits. */
  synchronous: 'full' | 'normal';
}

/**
 * The SQLite adapter of the store port. Three connections to one WAL file: `reads` (views,
 * replays, metrics; it also creates the file and runs the migrations), the ingress writer thread's
 * (src/store/sqlite/ingress.ts), and `runtime` for the runtime's bookkeeping (claims, outcomes,
 * deliveries, state). The runtime's connection commits without an fsync: those commits would
 * otherwise block the event loop several times per run and starve admission; every ingress commit
 * (synchronous per config) fsyncs the shared WAL, which makes the runtime's earlier frames durable
 * too (docs/runtime.md). Its busy timeout is 0: SQLite refuses at once while the writer thread
 * commits and writeWhenFree tries again on a timer, instead of sleeping on the event loop.
 */
export function openSqliteStore(settings: SqliteSettings, options: StoreOptions, seams?: SqliteStoreSeams): Store {
  if (options.role === 'command' && !existsSync(settings.path)) throw new StoreMissingError(`no store at ${settings.path}`);
  const now = options.now ?? options.localClock ?? Date.now;
  // A checkpoint copies the WAL into the database file and syncs both: in the service it runs on the
  // writer thread only, never in a commit on the event loop (docs/performance.md).
  const checkpoints = options.role !== 'service';
  const reads = openDatabase(settings.path, { synchronous: settings.synchronous, checkpoints });
  if (options.role === 'service') {
    warnAboutPermissions(settings.path, options);
    releaseStaleClaims(reads);
  }
  const runtime = openDatabase(settings.path, { synchronous: 'normal', checkpoints });
  runtime.exec('PRAGMA busy_timeout = 0');
  const gmail = lazyConnection(settings, checkpoints);
  const debounce = lazyConnection(settings, checkpoints);
  const ingress = createSqliteIngress(reads, {
    path: settings.path,
    synchronous: settings.synchronous,
    idempotencyTtlMs: options.idempotencyTtlMs,
    now,
    logger: options.logger,
    warmUp: options.role === 'service',
    ...(seams?.idleCheckpointMs === undefined ? {} : { idleCheckpointMs: seams.idleCheckpointMs }),
    ...(seams === undefined ? {} : { seams }),
  });
  let closing: Promise<void> | undefined;
  // Claims this object holds, gated or not (run-store.ts).
  const held = new Set<string>();
  return {
    ingress,
    runs: createSqliteRunStore(runtime, reads, held),
    limits: createSqliteLimitStore(runtime, reads, held),
    session: createSqliteMainSession(runtime, reads),
    transcripts: createSqliteTranscripts(runtime),
    deliveries: createSqliteDeliveries(runtime),
    state: createSqliteState(runtime),
    ownMessages: createSqliteOwnMessages(runtime, reads),
    relay: createSqliteRelayStore(runtime, reads),
    gmail: createSqliteGmailStore(gmail.get, reads, now),
    debounce: createSqliteDebounce((items) => ingress.join(items), debounce.get, reads),
    now,
    depths: async () => ({ pendingEvents: countPendingEvents(reads), runs: { queued: countRunsWithStatus(reads, 'queued'), running: countRunsWithStatus(reads, 'running'), debounced: countPendingGroupRuns(reads) } }),
    modelCalls: async (since) => countModelCalls(reads, since),
    close() {
      closing ??= ingress.close().finally(() => {
        gmail.close();
        debounce.close();
        for (const db of [runtime, reads]) if (db.isOpen) db.close();
      });
      return closing;
    },
  };
}

function warnAboutPermissions(path: string, options: StoreOptions): void {
  for (const problem of storePermissionProblems(path)) {
    options.logger.warn({ event: 'store.permissions_too_wide' }, `${problem}: the store holds payloads and transcripts`);
  }
}

/** A connection of the Gmail source or of debounce joins (durability as configured, busy timeout 0), opened on first use. */
function lazyConnection(settings: SqliteSettings, checkpoints: boolean): { get: () => DatabaseSync; close: () => void } {
  let db: DatabaseSync | undefined;
  return {
    get() {
      if (db === undefined) {
        db = openDatabase(settings.path, { synchronous: settings.synchronous, checkpoints });
        db.exec('PRAGMA busy_timeout = 0');
      }
      return db;
    },
    close() {
      if (db?.isOpen === true) db.close();
    },
  };
}
