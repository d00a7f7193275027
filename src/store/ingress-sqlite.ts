import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { HookError } from '../errors.js';
import type { Action, AcceptedResponse } from '../actions/types.js';
import type { Logger } from '../log.js';
import { inTransaction } from './sqlite.js';
import type { Acceptance, AcceptOutcome, IngressStore } from './store.js';

const PURGE_SLICE = 2000;

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
}

/**
 * Group commit: acceptances queued during one event-loop turn are written in one transaction,
 * and each caller is answered only after that transaction committed. A failed commit rolls
 * everything in it back and fails each caller with STORE_UNAVAILABLE: nothing half-written.
 */
export function createIngressStore(db: DatabaseSync, options: IngressStoreOptions): IngressStore {
  const now = options.now ?? Date.now;
  const statements = prepare(db);
  const listeners = new Set<(actions: readonly Action[]) => void>();
  let queue: Pending[] = [];
  let scheduled = false;
  let closed = false;

  const intervalMs = options.maintenanceIntervalMs ?? 60_000;
  let maintenance = setTimeout(runMaintenance, intervalMs);
  maintenance.unref();

  /** Purges expired keys in bounded slices, so a large backlog never stalls the event loop at once. */
  function runMaintenance(): void {
    let more = false;
    try {
      more = Number(statements.purgeKeys.run(now() - options.idempotencyTtlMs, PURGE_SLICE).changes) === PURGE_SLICE;
    } catch (error) {
      options.logger.warn({ event: 'store.maintenance_failed', err: (error as Error).message }, 'store maintenance failed');
    }
    if (closed) return;
    maintenance = setTimeout(runMaintenance, more ? 50 : intervalMs);
    maintenance.unref();
  }

  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    let outcomes: Array<AcceptOutcome | HookError>;
    try {
      outcomes = inTransaction(db, () => batch.map((item) => writeOrRefuse(item.acceptance)));
    } catch (error) {
      const refusal = toStoreError(error);
      options.logger.error({ event: 'store.commit_failed', err: (error as Error).message, batch: batch.length }, 'store commit failed');
      for (const item of batch) item.reject(refusal);
      return;
    }
    const committed: Action[] = [];
    batch.forEach((item, index) => {
      const outcome = outcomes[index] as AcceptOutcome | HookError;
      if (outcome instanceof HookError) return item.reject(outcome);
      if (outcome.kind === 'committed') committed.push(...item.acceptance.actions);
      item.resolve(outcome);
    });
    if (committed.length > 0) for (const listener of listeners) safeCall(listener, committed, options.logger);
  }

  /** A refusal of one acceptance (a reused key) happens before it writes anything, so the batch goes on. */
  function writeOrRefuse(acceptance: Acceptance): AcceptOutcome | HookError {
    try {
      return write(acceptance);
    } catch (error) {
      if (error instanceof HookError) return error;
      throw error;
    }
  }

  function write(acceptance: Acceptance): AcceptOutcome {
    const at = now();
    if (acceptance.idempotency !== undefined) {
      const previous = findKey(acceptance.idempotency.key, acceptance.idempotency.fingerprint, at);
      if (previous !== undefined) return { kind: 'replayed', response: previous };
      statements.insertKey.run(acceptance.idempotency.key, at, acceptance.idempotency.fingerprint, JSON.stringify(acceptance.response));
    }
    for (const action of acceptance.actions) {
      if (action.kind === 'wake') {
        statements.insertEvent.run(at, action.text, action.mode, action.origin.hook, action.origin.mappingId ?? null);
      } else {
        statements.insertRun.run(action.runId, at, action.origin.hook, action.name, action.sessionKey, JSON.stringify(action));
      }
    }
    return { kind: 'committed', response: acceptance.response };
  }

  function findKey(key: string, fingerprint: string, at: number): AcceptedResponse | undefined {
    const row = statements.findKey.get(key, at - options.idempotencyTtlMs) as { fingerprint: string; response: string } | undefined;
    if (row === undefined) return undefined;
    if (row.fingerprint !== fingerprint) {
      throw new HookError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key was already used for a different request');
    }
    return JSON.parse(row.response) as AcceptedResponse;
  }

  return {
    accept(acceptance) {
      if (closed) return Promise.reject(new HookError('SHUTTING_DOWN', 'shutting down, retry later', { retryAfterSeconds: 5 }));
      return new Promise<AcceptOutcome>((resolve, reject) => {
        queue.push({ acceptance, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    replay(key, fingerprint) {
      return findKey(key, fingerprint, now());
    },
    isWritable() {
      if (closed) return false;
      try {
        db.exec('BEGIN IMMEDIATE');
        db.exec('ROLLBACK');
        return true;
      } catch {
        return false;
      }
    },
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(maintenance);
      flush();
    },
  };
}

function prepare(db: DatabaseSync): Record<'insertEvent' | 'insertRun' | 'insertKey' | 'findKey' | 'purgeKeys', StatementSync> {
  return {
    insertEvent: db.prepare('INSERT INTO events (created_at, text, mode, hook, mapping_id) VALUES (?, ?, ?, ?, ?)'),
    insertRun: db.prepare(
      "INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action) VALUES (?, ?, 'queued', ?, ?, ?, ?)",
    ),
    insertKey: db.prepare('INSERT INTO idempotency (key, created_at, fingerprint, response) VALUES (?, ?, ?, ?)'),
    findKey: db.prepare('SELECT fingerprint, response FROM idempotency WHERE key = ? AND created_at > ?'),
    purgeKeys: db.prepare('DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE created_at <= ? LIMIT ?)'),
  };
}

function toStoreError(error: unknown): HookError {
  if (error instanceof HookError) return error;
  return new HookError('STORE_UNAVAILABLE', 'the store cannot accept requests right now, retry later', {
    retryAfterSeconds: 5,
    cause: error,
  });
}

function safeCall(listener: (actions: readonly Action[]) => void, actions: readonly Action[], logger: Logger): void {
  try {
    listener(actions);
  } catch (error) {
    logger.error({ event: 'store.listener_failed', err: (error as Error).message }, 'commit listener failed');
  }
}
