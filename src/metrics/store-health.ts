import { HookError } from '../errors.js';
import type { IngressStore } from '../store/port.js';
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
}

/**
 * Readiness that notices what opening a transaction alone does not: a full disk or a read-only
 * database lets a transaction open but refuses the first write. Two signals: the store's own
 * write probe, taken on the connection that commits (the writer thread's: per-connection limits
 * and faults show only there), and the memory of a recent refused commit (a real ENOSPC shows
 * only when the WAL grows at commit).
 */
export function createStoreHealth(options: StoreHealthOptions = {}): StoreHealth {
  const now = options.now ?? Date.now;
  const holdMs = options.holdMs ?? 5_000;
  let refusedAt: number | undefined;
  let watched: IngressStore | undefined;

  return {
    watch(store) {
      watched = store;
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
      return watched?.isWritable() ?? true;
    },
  };
}
