import type { DatabaseSync } from 'node:sqlite';
import { HookError } from '../errors.js';
import type { IngressStore } from '../store/store.js';
import type { Metrics } from './metrics.js';

export interface StoreHealth {
  /** The same store, with commit refusals counted and remembered for readiness. */
  watch(store: IngressStore): IngressStore;
  /** False while the store refuses writes: /readyz answers 503 and a load balancer sends traffic elsewhere. */
  isWritable(): boolean;
}

export interface StoreHealthOptions {
  metrics?: Metrics;
  now?: () => number;
  /** After a refused commit, not ready for this long unless a commit succeeds first (default 5 s, the Retry-After). */
  holdMs?: number;
  /** Bytes the write probe inserts (and rolls back); must need fresh pages to notice a full disk. */
  probeBytes?: number;
}

/**
 * Readiness that notices what `BEGIN IMMEDIATE` alone does not: a full disk or a read-only
 * database lets a transaction open but refuses the first write. Two signals: a write probe
 * (insert a row large enough to need new pages, then roll back: nothing reaches the file) and
 * the memory of a recent refused commit (a real ENOSPC shows only when the WAL grows at commit).
 */
export function createStoreHealth(db: DatabaseSync, options: StoreHealthOptions = {}): StoreHealth {
  const now = options.now ?? Date.now;
  const holdMs = options.holdMs ?? 5_000;
  const probeValue = 'x'.repeat(options.probeBytes ?? 16_384);
  let refusedAt: number | undefined;

  function probe(): boolean {
    if (db.isTransaction) return true; // a commit is in progress on this connection: it will report for itself
    try {
      db.exec('BEGIN IMMEDIATE');
      try {
        db.prepare('INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)').run('hookgate.readiness-probe', probeValue);
      } finally {
        db.exec('ROLLBACK');
      }
      return true;
    } catch {
      return false;
    }
  }

  return {
    watch(store) {
      return {
        ...store,
        accept: (acceptance) =>
          store.accept(acceptance).then(
            (outcome) => {
              refusedAt = undefined;
              return outcome;
            },
            (error: unknown) => {
              if (error instanceof HookError && error.code === 'STORE_UNAVAILABLE') {
                refusedAt = now();
                options.metrics?.storeCommitFailed();
              }
              throw error;
            },
          ),
      };
    },
    isWritable() {
      if (refusedAt !== undefined && now() - refusedAt < holdMs) return false;
      return probe();
    },
  };
}
