import type { Clock } from '../runtime/clock.js';

/** Pulls waiting for a target's events: woken when some may have arrived, or by their own deadline. */
export interface RelayWakeups {
  /** Resolves when `notify(target)` is called, `ms` passed, or `signal` aborted, whichever comes first. */
  wait(target: string, ms: number, signal: AbortSignal): Promise<void>;
  /** Wakes every pull waiting on the target (events committed, an event acknowledged). */
  notify(target: string): void;
}

export function createRelayWakeups(clock: Clock): RelayWakeups {
  const waiting = new Map<string, Set<() => void>>();
  return {
    wait(target, ms, signal) {
      return new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const waiters = waiting.get(target) ?? new Set();
        waiting.set(target, waiters);
        const done = (): void => {
          clock.clearTimer(timer);
          signal.removeEventListener('abort', done);
          waiters.delete(done);
          if (waiters.size === 0 && waiting.get(target) === waiters) waiting.delete(target);
          resolve();
        };
        const timer = clock.setTimer(done, ms);
        signal.addEventListener('abort', done, { once: true });
        waiters.add(done);
      });
    },
    notify(target) {
      for (const wake of [...(waiting.get(target) ?? [])]) wake();
    },
  };
}
