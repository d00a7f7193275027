import type { DatabaseSync } from 'node:sqlite';
import { HookError } from '../errors.js';
import type { AdmittedAction, AcceptedResponse } from '../actions/types.js';
import type { Logger } from '../log.js';
import type { Acceptance, AcceptOutcome, IngressStore, StorePragma } from './store.js';
import { createWriterClient } from './writer-client.js';
import type { ItemOutcome } from './writer-protocol.js';

const PURGE_SLICE = 2000;
/** isWritable() answers from the last probe and asks for a fresh one when it is older than this. */
const PROBE_MAX_AGE_MS = 1000;
const STORE_PRAGMAS: ReadonlySet<string> = new Set<StorePragma>(['max_page_count', 'query_only']);

interface Pending {
  acceptance: Acceptance;
  resolve: (outcome: AcceptOutcome) => void;
  reject: (error: unknown) => void;
}

export interface IngressStoreOptions {
  idempotencyTtlMs: number;
  now?: () => number;
  logger: Logger;
  /** How often expired idempotency keys are purged. */
  maintenanceIntervalMs?: number;
  /** Durability of the writer's connection; defaults to the setting `db` was opened with. */
  synchronous?: 'full' | 'normal';
  /** Bytes the write probe inserts (and rolls back); must need fresh pages to notice a full disk. */
  probeBytes?: number;
}

/** The store plus observers and fault hooks for tests. */
export interface SqliteIngressStore extends IngressStore {
  /** Commit transactions the writer acknowledged so far: fewer than acceptances when batching works. */
  commitCount(): number;
  /** Test hook: the writer thread dies in its next commit, after writing its rows and before COMMIT. */
  crashWriterDuringNextCommit(): Promise<void>;
  /** Test hook: ends the writer thread now. */
  terminateWriter(): Promise<void>;
}

/**
 * Group commit on a writer thread. Acceptances queue on the main thread and leave as one batch
 * per turn of the event loop; the writer commits every batch waiting for it in one transaction,
 * and each caller is answered only after that transaction committed. While the writer commits (and
 * fsyncs), the next batches wait in its queue, so transactions grow with the load and the event
 * loop never waits on the disk. A failed commit rolls
 * everything in it back and fails each caller with STORE_UNAVAILABLE: nothing half-written.
 * Reads (replay) stay on the main connection: WAL shows it every commit the writer acknowledged.
 */
export function createIngressStore(db: DatabaseSync, options: IngressStoreOptions): SqliteIngressStore {
  const now = options.now ?? Date.now;
  const findKeyStatement = db.prepare('SELECT fingerprint, response FROM idempotency WHERE key = ? AND created_at > ?');
  const listeners = new Set<(actions: readonly AdmittedAction[]) => void>();
  const health = { writable: true, probedAt: performance.now(), probing: false };
  let commits = 0;
  let lastTransaction = 0;
  const writer = createWriterClient(
    {
      path: databasePath(db),
      synchronous: options.synchronous ?? synchronousOf(db),
      idempotencyTtlMs: options.idempotencyTtlMs,
      probeBytes: options.probeBytes ?? 16_384,
      busyTimeoutMs: 5000,
    },
    {
      logger: options.logger,
      onDied: () => {
        lastTransaction = 0; // a new thread counts its transactions from 1 again
        recordProbe(false);
      },
    },
  );
  let queue: Pending[] = [];
  let scheduled = false;
  /** Batches sent and not yet answered; the writer answers in order, so the last one settles last. */
  let inFlight = 0;
  let lastSent: Promise<void> = Promise.resolve();
  let closed = false;
  let closing: Promise<void> | undefined;

  const intervalMs = options.maintenanceIntervalMs ?? 60_000;
  let maintenance = setTimeout(runMaintenance, intervalMs);
  maintenance.unref();
  void refreshProbe(); // starts the writer now, so the first request does not wait for it

  /** Purges expired keys in bounded slices on the writer, so a large backlog never holds it long. */
  function runMaintenance(): void {
    const cutoff = now() - options.idempotencyTtlMs;
    void writer.request({ type: 'purge', cutoff, limit: PURGE_SLICE }).then(
      (reply) => {
        if (reply.type !== 'purged') throw new Error(reply.type === 'error' ? reply.message : `unexpected reply ${reply.type}`);
        scheduleMaintenance(reply.changes === PURGE_SLICE ? 50 : intervalMs);
      },
      (error: unknown) => {
        if (!closed) options.logger.warn({ event: 'store.maintenance_failed', err: (error as Error).message }, 'store maintenance failed');
        scheduleMaintenance(intervalMs);
      },
    );
  }

  function scheduleMaintenance(delayMs: number): void {
    if (closed) return;
    maintenance = setTimeout(runMaintenance, delayMs);
    maintenance.unref();
  }

  function recordProbe(writable: boolean): void {
    health.writable = writable;
    health.probedAt = performance.now();
  }

  async function refreshProbe(): Promise<void> {
    health.probing = true;
    try {
      const reply = await writer.request({ type: 'probe' });
      recordProbe(reply.type === 'probed' && reply.writable);
    } catch {
      recordProbe(false);
    } finally {
      health.probing = false;
    }
  }

  /**
   * Each turn of the event loop sends what it accepted as one batch, without waiting for earlier
   * batches: the writer merges every batch waiting in its queue into one transaction (group
   * commit), so the event loop never waits for the writer and the writer never waits for it.
   */
  function sendNext(): void {
    scheduled = false;
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    inFlight += 1;
    lastSent = commitBatch(batch).finally(() => {
      inFlight -= 1;
    });
  }

  async function commitBatch(batch: readonly Pending[]): Promise<void> {
    try {
      const reply = await writer.request({ type: 'commit', at: now(), items: batch.map((item) => item.acceptance) });
      if (reply.type === 'committed') {
        if (reply.transaction !== lastTransaction) commits += 1;
        lastTransaction = reply.transaction;
        return settle(batch, reply.outcomes);
      }
      if (reply.type === 'failed') recordProbe(reply.writable);
      throw new Error(reply.type === 'failed' || reply.type === 'error' ? reply.message : `unexpected reply ${reply.type}`);
    } catch (error) {
      options.logger.error({ event: 'store.commit_failed', err: (error as Error).message, batch: batch.length }, 'store commit failed');
      const refusal = toStoreError(error);
      for (const item of batch) item.reject(refusal);
    }
  }

  function settle(batch: readonly Pending[], outcomes: readonly ItemOutcome[]): void {
    const committed: AdmittedAction[] = [];
    batch.forEach((item, index) => {
      const outcome = outcomes[index];
      if (outcome === undefined) return item.reject(toStoreError(new Error('the writer answered for fewer acceptances than it was sent')));
      if (outcome.kind === 'conflict') return item.reject(conflict());
      if (outcome.kind === 'replayed') return item.resolve({ kind: 'replayed', response: JSON.parse(outcome.responseJson) as AcceptedResponse });
      if (outcome.kind === 'unsealable') {
        options.logger.error({ event: 'store.seal_failed', err: outcome.message }, 'an accepted action could not be sealed; nothing of it was stored');
        return item.reject(new HookError('INTERNAL', 'the request could not be stored'));
      }
      reportSuspicious(item.acceptance.actions, outcome.suspicious, options.logger);
      committed.push(...item.acceptance.actions);
      item.resolve({ kind: 'committed', response: item.acceptance.response });
    });
    if (committed.length > 0) for (const listener of listeners) safeCall(listener, committed, options.logger);
  }

  async function drainAndClose(): Promise<void> {
    clearTimeout(maintenance);
    while (inFlight > 0 || queue.length > 0) {
      sendNext();
      await lastSent;
    }
    await writer.close();
  }

  return {
    accept(acceptance) {
      if (closed) return Promise.reject(new HookError('SHUTTING_DOWN', 'shutting down, retry later', { retryAfterSeconds: 5 }));
      return new Promise<AcceptOutcome>((resolve, reject) => {
        queue.push({ acceptance, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(sendNext);
        }
      });
    },
    replay(key, fingerprint) {
      const row = findKeyStatement.get(key, now() - options.idempotencyTtlMs) as { fingerprint: string; response: string } | undefined;
      if (row === undefined) return undefined;
      if (row.fingerprint !== fingerprint) throw conflict();
      return JSON.parse(row.response) as AcceptedResponse;
    },
    isWritable() {
      if (closed) return false;
      if (!health.probing && performance.now() - health.probedAt > PROBE_MAX_AGE_MS) void refreshProbe();
      return health.writable;
    },
    async pragma(name, value) {
      if (!STORE_PRAGMAS.has(name)) throw new TypeError(`pragma ${String(name)} cannot be set through the store`);
      const reply = await writer.request({ type: 'pragma', name, value });
      if (reply.type !== 'probed') throw new Error(reply.type === 'error' ? reply.message : `unexpected reply ${reply.type}`);
      recordProbe(reply.writable);
    },
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      closing ??= drainAndClose();
      return closing;
    },
    commitCount: () => commits,
    async crashWriterDuringNextCommit() {
      await writer.request({ type: 'crash-next-commit' });
    },
    terminateWriter: () => writer.terminate(),
  };
}

function databasePath(db: DatabaseSync): string {
  const path = db.location();
  if (path === null) throw new Error('the ingress store needs a database file: its writer thread opens its own connection');
  return path;
}

/** PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
function synchronousOf(db: DatabaseSync): 'full' | 'normal' {
  const row = db.prepare('PRAGMA synchronous').get() as { synchronous: number };
  return row.synchronous >= 2 ? 'full' : 'normal';
}

function conflict(): HookError {
  return new HookError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key was already used for a different request');
}

function toStoreError(error: unknown): HookError {
  if (error instanceof HookError) return error;
  return new HookError('STORE_UNAVAILABLE', 'the store cannot accept requests right now, retry later', {
    retryAfterSeconds: 5,
    cause: error,
  });
}

/** The injection heuristics' findings (src/envelope/suspicious.ts): counts and names, never the content. */
function reportSuspicious(actions: readonly AdmittedAction[], findings: readonly string[][], logger: Logger): void {
  findings.forEach((patterns, index) => {
    const origin = actions[index]?.origin;
    if (patterns.length === 0 || origin === undefined) return;
    logger.warn(
      { event: 'hook.suspicious_content', hook: origin.hook, mappingId: origin.mappingId, count: patterns.length, patterns },
      'untrusted content looks like a prompt-injection attempt (wrapped as usual)',
    );
  });
}

function safeCall(listener: (actions: readonly AdmittedAction[]) => void, actions: readonly AdmittedAction[], logger: Logger): void {
  try {
    listener(actions);
  } catch (error) {
    logger.error({ event: 'store.listener_failed', err: (error as Error).message }, 'commit listener failed');
  }
}
