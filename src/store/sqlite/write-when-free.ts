import { setTimeout as sleep } from 'node:timers/promises';
import { exponentialDelay } from '../../retry.js';

/** SQLITE_BUSY: another connection (the ingress writer thread, committing) holds the write lock. */
const SQLITE_BUSY = 5;
/** Longest wait between tries: the writer holds the lock for one commit (an fsync) at a time. */
const MAX_DELAY_MS = 16;
export const DEFAULT_WRITE_DEADLINE_MS = 10_000;

export function isBusy(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === SQLITE_BUSY;
}

/**
 * Runs a write of the runtime's connection, whose busy timeout is 0 once the service runs: when
 * the ingress writer thread holds the write lock, SQLite refuses at once instead of sleeping in its
 * busy handler on the event loop (which stalled every request for 1–5 ms at a time). This waits
 * on a timer and tries again; the write must be all-or-nothing (one statement or inTransaction),
 * so a refused try wrote nothing. Other errors, and BUSY past the deadline, are thrown.
 */
export async function writeWhenFree<T>(write: () => T, deadlineMs = DEFAULT_WRITE_DEADLINE_MS): Promise<T> {
  const started = performance.now();
  for (let tries = 0; ; tries += 1) {
    try {
      return write();
    } catch (error) {
      if (!isBusy(error) || performance.now() - started >= deadlineMs) throw error;
    }
    await sleep(exponentialDelay(tries, 1, MAX_DELAY_MS));
  }
}
