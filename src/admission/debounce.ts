import type { AcceptedResponse } from '../actions/types.js';
import type { Logger } from '../log.js';
import { debounceActionKey, type DebounceStore, type DueGroup } from '../store/debounce-port.js';
import type { IngressStore } from '../store/port.js';
import { mergeGroup } from './debounce-merge.js';
import { realClock, type Clock, type TimerHandle } from '../runtime/clock.js';

export interface DebounceFirerOptions {
  debounce: DebounceStore;
  ingress: IngressStore;
  /** This instance's owner id for claims (unique per process start). */
  owner: string;
  logger: Logger;
  /** Time and timers (tests advance a manual clock). Default: the process's. */
  clock?: Clock;
  /** Longest sleep between looks at the store: groups opened by other instances are seen this soon. Default 1000 ms. */
  pollMs?: number;
  /** How long a claim is held before another firer may take the group over. Default 60 s. */
  leaseMs?: number;
  /**
   * Whether a mapping in force debounces (default true): only then does the firer look at the
   * store every pollMs. Without one it looks once at start and then only when a group it knows
   * of is due (a group an earlier config left, a lapsed claim); no store work at all otherwise.
   */
  polling?: boolean;
}

export interface DebounceFirer {
  start(): void;
  /** A group now fires at `at`: wake up by then (a join on this instance). */
  nudge(at: number): void;
  /** A reload changed whether a mapping debounces: polling starts at once, or ends after the next look. */
  setPolling(on: boolean): void;
  /** Resolves once every group it was firing is done; fires no more. */
  stop(): Promise<void>;
}

const BATCH = 20;

/**
 * Fires due debounce groups: claims them (one firer per group, across instances), builds each
 * group's one action and commits it through the ingress under the group's idempotency key, then
 * ends the group. A crash between the commit and the end leaves a claim that lapses; the next
 * firer's commit of the same key is a replay, so the group still makes exactly one action.
 */
export function createDebounceFirer(options: DebounceFirerOptions): DebounceFirer {
  const clock = options.clock ?? realClock;
  const now = (): number => clock.now();
  const pollMs = options.pollMs ?? 1000;
  const leaseMs = options.leaseMs ?? 60_000;
  let timer: TimerHandle | undefined;
  let wakeAt = Number.POSITIVE_INFINITY;
  let running: Promise<void> | undefined;
  let stopped = false;
  let polling = options.polling ?? true;

  const schedule = (at: number): void => {
    if (stopped || at >= wakeAt) return;
    if (timer !== undefined) clock.clearTimer(timer);
    wakeAt = at;
    timer = clock.setTimer(tick, at - now());
  };

  function tick(): void {
    wakeAt = Number.POSITIVE_INFINITY;
    if (running !== undefined) {
      void running.then(() => schedule(now()));
      return;
    }
    running = (polling ? fireDue() : fireIfDue())
      .catch((error: unknown) => options.logger.warn({ event: 'debounce.fire_failed', err: (error as Error).message }, 'debounce groups could not be fired; retrying'))
      .finally(() => {
        running = undefined;
      });
    void running.then(async () => schedule(await nextLook()));
  }

  /** Without polling, a claim (a write) is made only when the store says a group is due. */
  async function fireIfDue(): Promise<void> {
    const next = await options.debounce.nextFireAt();
    if (next !== undefined && next <= now()) await fireDue();
  }

  /** The next group's time; the next poll, if polling; after a failed read, the next poll anyway. */
  async function nextLook(): Promise<number> {
    const next = await options.debounce.nextFireAt().catch(() => now() + pollMs);
    return Math.min(polling ? now() + pollMs : Number.POSITIVE_INFINITY, next ?? Number.POSITIVE_INFINITY);
  }

  async function fireDue(): Promise<void> {
    for (;;) {
      const at = now();
      const groups = await options.debounce.claimDue(at, options.owner, at + leaseMs, BATCH);
      // One group that cannot be committed waits for its claim to lapse; the others of the batch still fire.
      for (const group of groups) {
        await fire(group).catch((error: unknown) =>
          options.logger.warn({ event: 'debounce.fire_failed', groupId: group.groupId, err: (error as Error).message }, 'a debounce group could not be fired; retried when its claim lapses'),
        );
      }
      if (groups.length < BATCH || stopped) return;
    }
  }

  async function fire(group: DueGroup): Promise<void> {
    const action = await mergeGroup(group, {
      newest: () => options.debounce.newestMember(group.groupId),
      page: (afterSeq, limit) => options.debounce.members(group.groupId, afterSeq, limit),
    });
    const response: AcceptedResponse =
      action.kind === 'wake' ? { status: 200, body: { ok: true, mode: action.mode } } : { status: action.kind === 'agent' ? 202 : 200, body: { ok: true, runId: action.runId } };
    // The key makes a second commit of this group (after a crash before `fired`) a replay.
    const outcome = await options.ingress.accept({ actions: [action], response, idempotency: { key: debounceActionKey(group.groupId), fingerprint: group.groupId } });
    await options.debounce.fired(group.groupId, options.owner);
    options.logger.info(
      { event: 'debounce.fired', mappingId: group.mappingId, groupId: group.groupId, deliveries: group.deliveries, replayed: outcome.kind === 'replayed' },
      'debounce group fired',
    );
  }

  return {
    start() {
      schedule(now());
    },
    nudge: schedule,
    setPolling(on) {
      const started = on && !polling;
      polling = on;
      if (started) schedule(now());
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimer(timer);
      await running;
    },
  };
}
