import { isBusy } from './write-when-free.js';

/** Nothing ever notifies it: Atomics.wait on it is a sleep of the thread, in fractions of a millisecond. */
const NEVER_NOTIFIED = new Int32Array(new SharedArrayBuffer(4));
const FIRST_WAIT_MS = 0.05;
const LONGEST_WAIT_MS = 2;

/**
 * Runs `step` (a statement that takes or uses the write lock: BEGIN IMMEDIATE, COMMIT, a lone
 * write) on the writer thread, trying again while another connection holds the lock, for up to
 * `deadlineMs`. The writer's connection has no busy timeout: SQLite's own busy handler sleeps 1, 2,
 * 5, 10, 15, 20… ms between tries, so a runtime commit on the event loop that held the lock for
 * 0.2 ms cost an acceptance 1–30 ms (the soak's p50 and p99). This waits 50 µs, doubling up to 2 ms.
 * Only for a worker thread: Atomics.wait blocks the thread it runs on.
 */
export function whileLocked<T>(step: () => T, deadlineMs: number): T {
  const started = performance.now();
  for (let waitMs = FIRST_WAIT_MS; ; waitMs = Math.min(waitMs * 2, LONGEST_WAIT_MS)) {
    try {
      return step();
    } catch (error) {
      if (!isBusy(error) || performance.now() - started >= deadlineMs) throw error;
    }
    Atomics.wait(NEVER_NOTIFIED, 0, 0, waitMs);
  }
}
