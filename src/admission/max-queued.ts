import { HookError } from '../errors.js';
import { runIdOf, type AdmittedAction } from '../actions/types.js';
import type { DebounceJoin, QueueDepths } from '../store/port.js';

/** How old the count may be before a request under the limit has it read again (in the background). */
export const QUEUE_COUNT_FRESH_MS = 1000;
/** How old the count may be for a refusal: older, it is read again first, so runs that ended are not counted. */
export const REFUSAL_COUNT_FRESH_MS = 100;
/** What a refused sender is told to wait. */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

export interface QueueGuardOptions {
  maxQueued: number;
  /** The store's counts (every instance's): queued runs and pending debounce groups that will become runs. */
  depths: () => Promise<QueueDepths>;
  /** For each join, whether it would go into an open group (Store.debounce.joinsOpenGroup); absent: every join counts as a new run. */
  joinsOpenGroup?: (joins: readonly DebounceJoin[], at: number) => Promise<boolean[]>;
  now: () => number;
  /** An admission was refused (metrics): the mapping's id, else the hook name. */
  onRefused?: (label: string) => void;
}

/** A request's actions, and its debounce joins (one per action) when the mapping debounces. */
export type QueueGuard = (actions: readonly AdmittedAction[], hook: string, joins?: readonly DebounceJoin[]) => Promise<void>;

/**
 * agents.defaults.maxQueued: with that many runs queued or pending in debounce groups, a request
 * that would add a run is refused with 503 SERVER_BUSY and Retry-After before anything is stored.
 *
 * Cheap while under the limit: the store's count is read at most once a second (in the background)
 * and this process's admissions since are added, an upper bound (runs that ended since are not
 * subtracted, every debounced action counts as a new group). A request that this bound would put
 * past the limit is decided on a count read at most 0.1 s earlier (one read serves every request in
 * that time) and on whether its joins go into open groups; only that decision can refuse. Other
 * instances' admissions within a second and commits in flight while the count is read can
 * overshoot the limit by that much; a refusal never comes from runs that ended.
 */
export function createQueueGuard(options: QueueGuardOptions): QueueGuard {
  let counted: { queued: number; at: number; admittedSince: number } | undefined;
  let reading: Promise<void> | undefined;
  const read = (): Promise<void> => {
    // Admissions made while the count is read may or may not be in it: they stay counted (the safe side).
    const before = counted?.admittedSince ?? 0;
    const at = options.now();
    reading ??= options
      .depths()
      .then((depths) => {
        counted = { queued: depths.runs.queued + depths.runs.debounced, at, admittedSince: (counted?.admittedSince ?? 0) - before };
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  /**
   * A count read at most `maxAgeMs` before this call: waits for the read in flight, then reads again
   * if that one started earlier (a read started after the call always serves it, however slow).
   */
  const fresh = async (maxAgeMs: number): Promise<number> => {
    const oldest = options.now() - maxAgeMs;
    while (counted === undefined || counted.at < oldest) await (reading ?? read()).catch(unavailable);
    return counted.queued + counted.admittedSince;
  };
  const admit = (runs: number): void => {
    if (counted !== undefined) counted.admittedSince += runs;
  };

  return async (actions, hook, joins) => {
    // Agent runs, notifies and forwarded actions are queued runs; a wake that stays here is an event.
    const runs = actions.filter((action) => runIdOf(action) !== undefined).length;
    if (runs === 0) return;
    const estimate = counted === undefined ? await fresh(Number.POSITIVE_INFINITY) : counted.queued + counted.admittedSince;
    if (options.now() - (counted?.at ?? 0) >= QUEUE_COUNT_FRESH_MS) void read().catch(() => undefined);
    if (estimate + runs <= options.maxQueued) return admit(runs);
    const seen = await fresh(REFUSAL_COUNT_FRESH_MS);
    const added = joins === undefined ? runs : await newRuns(joins, options).catch(unavailable);
    if (seen + added > options.maxQueued) refuse(actions, hook, seen, options);
    admit(added);
  };
}

/** The store could not answer: refused with what to do; nothing was acknowledged. */
function unavailable(error: unknown): never {
  throw new HookError('STORE_UNAVAILABLE', 'the store cannot count the queued runs right now, retry later', { retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS, cause: error });
}

/** The runs a request's joins add: one per group it opens; joining an open group adds none, a wake kept here none. */
async function newRuns(joins: readonly DebounceJoin[], options: QueueGuardOptions): Promise<number> {
  const runJoins = joins.filter((join) => runIdOf(join.action) !== undefined);
  if (runJoins.length === 0 || options.joinsOpenGroup === undefined) return runJoins.length;
  const joinsOpen = await options.joinsOpenGroup(runJoins, options.now());
  return joinsOpen.filter((open) => !open).length;
}

function refuse(actions: readonly AdmittedAction[], hook: string, seen: number, options: QueueGuardOptions): never {
  options.onRefused?.(actions.find((action) => action.origin.mappingId !== undefined)?.origin.mappingId ?? hook);
  throw new HookError('SERVER_BUSY', `${seen} runs are queued or waiting in debounce groups (agents.defaults.maxQueued is ${options.maxQueued}); retry later`, {
    retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
  });
}
