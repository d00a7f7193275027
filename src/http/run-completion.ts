import type { RunCompletion } from '../store/port-types.js';

/** Reads where a run stands (the store's `runs.completion`). */
export type ReadCompletion = (runId: string) => Promise<RunCompletion | undefined>;

const ENDED = new Set(['ok', 'error', 'timeout', 'interrupted']);
const FIRST_POLL_MS = 50;
const LONGEST_POLL_MS = 500;

export interface CompletionWait {
  /** Longest wait; past it the caller answers as if nobody waited. */
  boundMs: number;
  /** Aborted when the client went away: stop reading at once. */
  signal: AbortSignal;
  /** Injected in tests. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

/**
 * Waits for a run to end, reading the store (the run may execute on another instance, so the
 * store, not this process's runtime, says when it ended): every 50 ms at first, then less often, up
 * to every 500 ms. Resolves with the ended run, or undefined at the bound or when the client left.
 */
export async function waitForCompletion(read: ReadCompletion, runId: string, wait: CompletionWait): Promise<RunCompletion | undefined> {
  const now = wait.now ?? Date.now;
  const sleep = wait.sleep ?? abortableSleep;
  const deadline = now() + wait.boundMs;
  for (let pause = FIRST_POLL_MS; !wait.signal.aborted; pause = Math.min(pause * 2, LONGEST_POLL_MS)) {
    const completion = await read(runId);
    if (completion !== undefined && ENDED.has(completion.status)) return completion;
    const left = deadline - now();
    if (left <= 0) return undefined;
    await sleep(Math.min(pause, left), wait.signal);
  }
  return undefined;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
