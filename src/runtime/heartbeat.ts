import type { Logger } from '../log.js';
import { exponentialDelay } from '../retry.js';
import type { Clock, TimerHandle } from './clock.js';
import type { HeartbeatResult } from './main-session.js';

/** First wait after a failed heartbeat; doubled per consecutive failure up to BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_MAX_MS = 10 * 60_000;

export interface HeartbeatSchedulerOptions {
  clock: Clock;
  everyMs: number;
  beat: () => Promise<HeartbeatResult>;
  /** Also called on every periodic tick (the runtime re-checks its run queue there). */
  onTick?: () => void;
  logger: Logger;
}

export interface HeartbeatScheduler {
  start(): void;
  /** A heartbeat as soon as possible; requests made together, or while one runs, cause one more at most. */
  request(): void;
  /** No more heartbeats; resolves when the running one (if any) has ended. */
  stop(): Promise<void>;
  /** The heartbeat running now, if any. */
  current(): Promise<void> | undefined;
}

/**
 * Serialises the main session's heartbeats: never two at once. A request while one runs sets a
 * single follow-up flag; requests in the same turn share one zero-delay timer. After a failure the
 * next attempt waits (exponential backoff) and `now` requests wait with it.
 */
export function createHeartbeatScheduler(options: HeartbeatSchedulerOptions): HeartbeatScheduler {
  const { clock, logger } = options;
  let stopped = true;
  let periodic: TimerHandle | undefined;
  let immediate: TimerHandle | undefined;
  let running: Promise<void> | undefined;
  let followUp = false;
  let failures = 0;
  let notBefore = 0;

  function tick(): void {
    periodic = clock.setTimer(tick, options.everyMs);
    options.onTick?.();
    if (clock.now() >= notBefore) fire();
  }

  function request(): void {
    if (stopped) return;
    if (running !== undefined) {
      followUp = true;
      return;
    }
    if (immediate === undefined) immediate = clock.setTimer(fire, Math.max(0, notBefore - clock.now()));
  }

  function fire(): void {
    if (immediate !== undefined) clock.clearTimer(immediate);
    immediate = undefined;
    if (stopped) return;
    if (running !== undefined) {
      followUp = true;
      return;
    }
    running = beatOnce().finally(() => {
      running = undefined;
      if (followUp) {
        followUp = false;
        request();
      }
    });
  }

  async function beatOnce(): Promise<void> {
    let result: HeartbeatResult;
    try {
      result = await options.beat();
    } catch (error) {
      logger.error({ event: 'heartbeat.crashed', err: (error as Error).message }, 'heartbeat failed unexpectedly');
      result = { kind: 'failed', error: (error as Error).message };
    }
    if (result.kind === 'failed') {
      failures += 1;
      notBefore = clock.now() + exponentialDelay(failures - 1, BACKOFF_BASE_MS, BACKOFF_MAX_MS);
      followUp = true;
      return;
    }
    failures = 0;
    notBefore = 0;
    if (result.kind === 'ok' && result.more) followUp = true;
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      periodic = clock.setTimer(tick, options.everyMs);
    },
    request,
    async stop() {
      stopped = true;
      followUp = false;
      for (const timer of [periodic, immediate]) if (timer !== undefined) clock.clearTimer(timer);
      periodic = undefined;
      immediate = undefined;
      await running;
    },
    current: () => running,
  };
}
