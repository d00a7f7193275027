import type pg from 'pg';
import { HookError } from '../../errors.js';
import type { AdmittedAction, AcceptedResponse } from '../../actions/types.js';
import type { Logger } from '../../log.js';
import type { AcceptOutcome, IngressStore } from '../port.js';
import { isTransient, query, storeError, transaction } from './sql.js';
import { writeBatch } from './write-batch.js';
import { idempotencyConflict, settleAcceptances, type PendingAcceptance } from '../acceptance-outcomes.js';
import { createWritableProbe } from './probe.js';
import { createTurnBatches } from './turn-batches.js';
import { pruneSpentBuckets } from './rate-hit.js';

const PURGE_SLICE = 2000;

type Pending = PendingAcceptance;

export interface PostgresIngressOptions {
  idempotencyTtlMs: number;
  now: () => number;
  logger: Logger;
  /** Transactions in flight at once; acceptances arriving meanwhile wait and join the next one. */
  maxInFlight: number;
  maintenanceIntervalMs?: number;
}

export interface PostgresIngress extends IngressStore {
  /** Transactions committed so far: fewer than acceptances when group commit works. */
  commitCount(): number;
}

/**
 * Group commit on PostgreSQL: the acceptances of one turn of the event loop leave as one
 * transaction (multi-row inserts), and each caller is answered only after its COMMIT. While
 * maxInFlight transactions are out, new acceptances gather into the next batch, so transactions
 * grow with the load. A failed transaction rolls back whole and each caller gets STORE_UNAVAILABLE
 * (503, Retry-After): nothing half-written, nothing acknowledged that is not committed.
 */
export function createPostgresIngress(pool: pg.Pool, options: PostgresIngressOptions): PostgresIngress {
  const { now, logger } = options;
  const listeners = new Set<(actions: readonly AdmittedAction[]) => void>();
  const probe = createWritableProbe(pool);
  const batches = createTurnBatches(commitBatch, options.maxInFlight);
  let commits = 0;
  let closed = false;
  /** Whether the last commit failed on the database: only then are requests refused without trying. */
  let lastCommitFailed = false;
  const maintenance = setInterval(purgeExpiredKeys, options.maintenanceIntervalMs ?? 60_000);
  maintenance.unref();

  async function commitBatch(batch: readonly Pending[]): Promise<void> {
    const at = now();
    try {
      const outcomes = await transaction(pool, (client) => writeBatch(client, batch.map((item) => item.acceptance), at, at - options.idempotencyTtlMs));
      commits += 1;
      lastCommitFailed = false;
      probe.record(true);
      settleAcceptances(batch, outcomes, { logger, listeners });
    } catch (error) {
      if (isTransient(error) || (error instanceof HookError && error.code === 'STORE_UNAVAILABLE')) {
        lastCommitFailed = true;
        probe.record(false);
      }
      logger.error({ event: 'store.commit_failed', err: (error as Error).message, batch: batch.length }, 'store commit failed');
      const refusal = error instanceof HookError ? error : new HookError('INTERNAL', 'the request could not be stored', { cause: error });
      for (const item of batch) item.reject(refusal);
    }
  }

  /** Expired idempotency keys, and rate buckets whose time has passed (never one a batch holds). */
  function purgeExpiredKeys(): void {
    const at = now();
    const failed = (error: unknown) => logger.warn({ event: 'store.maintenance_failed', err: (error as Error).message }, 'store maintenance failed');
    query(pool, 'DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE created_at <= $1 LIMIT $2)', [at - options.idempotencyTtlMs, PURGE_SLICE]).catch(failed);
    pruneSpentBuckets(pool, at).catch(failed);
  }

  return {
    accept(acceptance) {
      if (closed) return Promise.reject(new HookError('SHUTTING_DOWN', 'shutting down, retry later', { retryAfterSeconds: 5 }));
      // While the database is unreachable (a commit failed and the probe agrees), refuse at once
      // instead of making every caller wait for a connect timeout; the probe notices the database
      // is back within a second. A probe alone (slow under load) never refuses a request.
      if (lastCommitFailed && !probe.writable()) return Promise.reject(storeError(new Error('the database is unreachable')));
      return new Promise<AcceptOutcome>((resolve, reject) => batches.add({ acceptance, resolve, reject }));
    },
    async replay(key, fingerprint) {
      const { rows } = await query<{ fingerprint: string; response: string }>(
        pool,
        'SELECT fingerprint, response FROM idempotency WHERE key = $1 AND created_at > $2',
        [key, now() - options.idempotencyTtlMs],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      if (row.fingerprint !== fingerprint) throw idempotencyConflict();
      return JSON.parse(row.response) as AcceptedResponse;
    },
    isWritable: () => !closed && probe.writable(),
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearInterval(maintenance);
      await batches.drain();
    },
    commitCount: () => commits,
  };
}
