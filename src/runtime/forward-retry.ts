import { retryDelay } from '../retry.js';
import type { Clock, TimerHandle } from './clock.js';
import type { TargetPort } from './ports.js';

export type RetryVerdict = { kind: 'retry'; at: number } | { kind: 'give-up'; reason: string };

/**
 * After a failed attempt (number `attempts`, counted from 1): the time of the next one — the
 * target's Retry-After, else exponential backoff with jitter, capped either way — or, past the
 * target's maxAttempts or maxAge (from when the run was accepted), the end of the run.
 */
export function retryVerdict(
  rule: TargetPort['settings']['retry'],
  run: { attempts: number; createdAt: number },
  retryAfterMs: number | undefined,
  now: number,
  random?: () => number,
): RetryVerdict {
  if (run.attempts >= rule.maxAttempts) return { kind: 'give-up', reason: `gave up after ${run.attempts} attempt${run.attempts === 1 ? '' : 's'}` };
  if (now - run.createdAt >= rule.maxAgeMs) return { kind: 'give-up', reason: `gave up after ${Math.round((now - run.createdAt) / 60_000)} min (retry.maxAgeHours)` };
  return { kind: 'retry', at: now + retryDelay(run.attempts, retryAfterMs, { baseMs: rule.minDelayMs, maxMs: rule.maxDelayMs }, random) };
}

/**
 * Wakes the run queue when a run sent back to wait for its retry is due. One timer, at the
 * earliest such time in this process; after a restart the gates' own wake-up (the store's
 * earliest `not_before`) takes over.
 */
export function createRetryWaker(clock: Clock, pump: () => void): { wakeAt(at: number): void; stop(): void } {
  const due: number[] = [];
  let timer: { handle: TimerHandle; at: number } | undefined;
  let stopped = false;
  function arm(): void {
    const next = due[0];
    if (stopped || next === undefined || (timer !== undefined && timer.at <= next)) return;
    if (timer !== undefined) clock.clearTimer(timer.handle);
    const handle = clock.setTimer(() => {
      timer = undefined;
      const now = clock.now();
      while (due[0] !== undefined && due[0] <= now) due.shift();
      pump();
      arm();
    }, Math.max(0, next - clock.now()));
    timer = { handle, at: next };
  }
  return {
    wakeAt(at) {
      const index = due.findIndex((time) => time > at);
      due.splice(index === -1 ? due.length : index, 0, at);
      arm();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimer(timer.handle);
    },
  };
}
