import { HookError } from '../errors.js';
import { runIdOf, type AdmittedAction } from '../actions/types.js';
import type { QueueDepths } from '../store/port.js';

/** How old the queued count may be before it is read again from the store. */
export const QUEUE_COUNT_FRESH_MS = 1000;
/** What a refused sender is told to wait. */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

export interface QueueGuardOptions {
  maxQueued: number;
  depths: () => Promise<QueueDepths>;
  now: () => number;
  /** An admission was refused (metrics): the mapping's id, else the hook name. */
  onRefused?: (label: string) => void;
}

/**
 * agents.defaults.maxQueued: with that many runs queued, a request that would queue more is
 * refused with 503 SERVER_BUSY and Retry-After before anything is stored. The count comes from
 * the store (every instance's runs), read at most once a second; runs this instance admitted
 * since are added, so a burst cannot overshoot between two reads (only by the few commits in
 * flight while a read runs, and by other instances' admissions within a second).
 */
export function createQueueGuard(options: QueueGuardOptions): (actions: readonly AdmittedAction[], hook: string) => Promise<void> {
  let counted: { queued: number; at: number; admittedSince: number } | undefined;
  let reading: Promise<void> | undefined;
  const read = (): Promise<void> => {
    // Runs admitted while the count is read may or may not be in it: they stay counted (the safe side).
    const before = counted?.admittedSince ?? 0;
    reading ??= options
      .depths()
      .then((depths) => {
        counted = { queued: depths.runs.queued, at: options.now(), admittedSince: (counted?.admittedSince ?? 0) - before };
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  return async (actions, hook) => {
    // Agent runs, notifies and forwarded actions are queued runs; a wake that stays here is an event.
    const runs = actions.filter((action) => runIdOf(action) !== undefined).length;
    if (runs === 0) return;
    if (counted === undefined) {
      // No count yet and the store cannot give one: refused with what to do, nothing was acknowledged.
      await read().catch((error: unknown) => {
        throw new HookError('STORE_UNAVAILABLE', 'the store cannot count the queued runs right now, retry later', { retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS, cause: error });
      });
    }
    else if (options.now() - counted.at >= QUEUE_COUNT_FRESH_MS) void read().catch(() => undefined);
    const current = counted as { queued: number; admittedSince: number };
    if (current.queued + current.admittedSince + runs > options.maxQueued) {
      options.onRefused?.(actions.find((action) => action.origin.mappingId !== undefined)?.origin.mappingId ?? hook);
      throw new HookError('SERVER_BUSY', `${options.maxQueued} runs are queued; retry later`, { retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS });
    }
    current.admittedSince += runs;
  };
}
