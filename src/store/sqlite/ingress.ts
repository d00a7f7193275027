import type { DatabaseSync } from 'node:sqlite';
import { HookError } from '../../errors.js';
import type { AdmittedAction, AcceptedResponse } from '../../actions/types.js';
import type { Logger } from '../../log.js';
import type { IngressStore } from '../port.js';
import { createCommitQueue, toStoreError } from './ingress-commit.js';
import { idempotencyConflict } from '../acceptance-outcomes.js';
import { createWriterClient, type WriterClient } from './writer-client.js';
import type { JoinItem, JoinResult } from './debounce-join.js';
import type { WriterReply, WriterRequest } from './writer-protocol.js';

const PURGE_SLICE = 2000;
/** The writer checkpoints after this long without a commit of its own (its commits checkpoint by themselves). */
const DEFAULT_IDLE_CHECKPOINT_MS = 1000;
/** isWritable() answers from the last probe and asks for a fresh one when it is older than this. */
const PROBE_MAX_AGE_MS = 1000;

export interface SqliteIngressOptions {
  /** The database file (already created and migrated): the writer thread opens its own connection. */
  path: string;
  synchronous: 'full' | 'normal';
  idempotencyTtlMs: number;
  now: () => number;
  logger: Logger;
  /** How often expired idempotency keys are purged. */
  maintenanceIntervalMs?: number;
  /** Bytes the write probe inserts (and rolls back); must need fresh pages to notice a full disk. */
  probeBytes?: number;
  /** Start the writer thread now, so the first request does not wait for it (the service); else on first use. */
  warmUp: boolean;
  /** How long the writer goes without a commit before it checkpoints what other connections wrote; 0: never (default 1 s). */
  idleCheckpointMs?: number;
  seams?: SqliteStoreSeams;
}

/** Test-only seams of the SQLite adapter (test/store/support/writer-faults.ts uses them). */
export interface SqliteStoreSeams {
  /** The module the writer thread runs instead of writer-thread.ts (one with a fault-injecting extension). */
  writerEntry?: URL;
  /** Receives the adapter's writer once the ingress exists. */
  onWriter?: (access: WriterAccess) => void;
  /** SqliteIngressOptions.idleCheckpointMs. */
  idleCheckpointMs?: number;
}

/** What the test seam reaches of the writer: raw requests, a crash, and the group-commit count. */
export interface WriterAccess {
  /** Sends a request; a `probed` reply also updates what isWritable() answers. */
  request(message: WriterRequest): Promise<WriterReply>;
  /** Ends the writer thread now, as a crash would. */
  terminate(): Promise<void>;
  /** Commit transactions the writer acknowledged so far: fewer than acceptances when batching works. */
  commitCount(): number;
}

/**
 * The ingress side of the SQLite adapter: group commit on a writer thread (ingress-commit.ts),
 * the writability probe, and the purge of expired idempotency keys. Reads (replay) stay on the
 * main connection: WAL shows it every commit the writer acknowledged.
 */
/** The SQLite ingress, and the writer's debounce joins (the debounce store commits them through it). */
export interface SqliteIngress extends IngressStore {
  /** Commits a batch of debounce joins in one transaction on the writer thread; rejects STORE_UNAVAILABLE as a commit does. */
  join(items: JoinItem[]): Promise<JoinResult[]>;
}

export function createSqliteIngress(readDb: DatabaseSync, options: SqliteIngressOptions): SqliteIngress {
  const health = createWriterHealth();
  const writer = createWriterClient(
    {
      path: options.path,
      synchronous: options.synchronous,
      idempotencyTtlMs: options.idempotencyTtlMs,
      probeBytes: options.probeBytes ?? 16_384,
      busyTimeoutMs: 5000,
      idleCheckpointMs: options.idleCheckpointMs ?? DEFAULT_IDLE_CHECKPOINT_MS,
    },
    {
      logger: options.logger,
      onDied: () => {
        commits.writerRestarted();
        health.record(false);
      },
      ...(options.seams?.writerEntry === undefined ? {} : { entry: options.seams.writerEntry }),
    },
  );
  const listeners = new Set<(actions: readonly AdmittedAction[]) => void>();
  const commits = createCommitQueue(writer, { now: options.now, logger: options.logger, onFailedProbe: health.record, listeners });
  const maintenance = startMaintenance(writer, options);
  const findKey = readDb.prepare('SELECT fingerprint, response FROM idempotency WHERE key = ? AND created_at > ?');
  let closing: Promise<void> | undefined;
  if (options.warmUp) void health.refresh(writer);
  options.seams?.onWriter?.(writerAccess(writer, health, () => commits.count()));

  return {
    accept: (acceptance) => (closing === undefined ? commits.enqueue(acceptance) : Promise.reject(shuttingDown())),
    async replay(key, fingerprint) {
      const row = findKey.get(key, options.now() - options.idempotencyTtlMs) as { fingerprint: string; response: string } | undefined;
      if (row === undefined) return undefined;
      if (row.fingerprint !== fingerprint) throw idempotencyConflict();
      return JSON.parse(row.response) as AcceptedResponse;
    },
    async join(items) {
      if (closing !== undefined) throw shuttingDown();
      let reply: WriterReply;
      try {
        reply = await writer.request({ type: 'join', items });
      } catch (error) {
        throw toStoreError(error);
      }
      if (reply.type === 'joined') return reply.results;
      if (reply.type === 'failed') health.record(reply.writable);
      options.logger.error({ event: 'store.commit_failed', err: reply.type === 'failed' || reply.type === 'error' ? reply.message : reply.type, batch: items.length }, 'debounce join failed');
      throw toStoreError(new Error(reply.type === 'failed' || reply.type === 'error' ? reply.message : `unexpected reply ${reply.type}`));
    },
    isWritable: () => closing === undefined && health.isWritable(writer),
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closing ??= (async () => {
        maintenance.stop();
        await commits.drain();
        await writer.close();
      })();
      return closing;
    },
  };
}

function shuttingDown(): HookError {
  return new HookError('SHUTTING_DOWN', 'shutting down, retry later', { retryAfterSeconds: 5 });
}

interface WriterHealth {
  record(writable: boolean): void;
  refresh(writer: WriterClient): Promise<void>;
  /** The last probe's answer; a probe older than PROBE_MAX_AGE_MS is refreshed in the background. */
  isWritable(writer: WriterClient): boolean;
}

/** The last write probe of the writer's connection (per-connection limits and faults show only there). */
function createWriterHealth(): WriterHealth {
  const state = { writable: true, probedAt: performance.now(), probing: false };
  const health: WriterHealth = {
    record(writable) {
      state.writable = writable;
      state.probedAt = performance.now();
    },
    async refresh(writer) {
      state.probing = true;
      try {
        const reply = await writer.request({ type: 'probe' });
        health.record(reply.type === 'probed' && reply.writable);
      } catch {
        health.record(false);
      } finally {
        state.probing = false;
      }
    },
    isWritable(writer) {
      if (!state.probing && performance.now() - state.probedAt > PROBE_MAX_AGE_MS) void health.refresh(writer);
      return state.writable;
    },
  };
  return health;
}

/** Purges expired keys in bounded slices on the writer, so a large backlog never holds it long. */
function startMaintenance(writer: WriterClient, options: SqliteIngressOptions): { stop(): void } {
  const intervalMs = options.maintenanceIntervalMs ?? 60_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };
  function run(): void {
    const cutoff = options.now() - options.idempotencyTtlMs;
    void writer.request({ type: 'purge', cutoff, limit: PURGE_SLICE }).then(
      (reply) => {
        if (reply.type !== 'purged') throw new Error(reply.type === 'error' ? reply.message : `unexpected reply ${reply.type}`);
        schedule(reply.changes === PURGE_SLICE ? 50 : intervalMs);
      },
      (error: unknown) => {
        if (!stopped) options.logger.warn({ event: 'store.maintenance_failed', err: (error as Error).message }, 'store maintenance failed');
        schedule(intervalMs);
      },
    );
  }
  schedule(intervalMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function writerAccess(writer: WriterClient, health: WriterHealth, commitCount: () => number): WriterAccess {
  return {
    async request(message) {
      const reply = await writer.request(message);
      if (reply.type === 'probed') health.record(reply.writable);
      return reply;
    },
    terminate: () => writer.terminate(),
    commitCount,
  };
}
