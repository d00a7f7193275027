import type { Logger } from '../log.js';
import type { Clock, TimerHandle } from './clock.js';
import type { RuntimeStore } from './ports.js';
import { recoverUnfinished } from './recovery.js';

export interface SharedSweepOptions {
  store: RuntimeStore;
  clock: Clock;
  everyMs: number;
  logger: Logger;
  /** Wakes the run queue: runs queued by other instances, or taken over just now, are claimed. */
  pumpRuns: () => void;
  /** Asks for a heartbeat: events another instance accepted (mode now) while this one held the turn. */
  requestHeartbeat: () => void;
}

/**
 * When several instances share the store, each one only hears of its own commits. Every everyMs
 * this sweep does for the others what a restart does for one process: it takes over the runs
 * whose lease ran out (their instance died: recovery.ts, with the same attempt rule), closes a
 * heartbeat a dead instance left running, then claims queued runs and asks for a heartbeat when
 * events are due. A sweep that fails (the database is away) is logged and the next one tries again.
 */
export function startSharedSweep(options: SharedSweepOptions): { stop(): void } {
  const { store, clock, logger } = options;
  let timer: TimerHandle | undefined;
  let stopped = false;

  async function sweep(): Promise<void> {
    try {
      await recoverUnfinished(store, clock.now(), logger);
      options.pumpRuns();
      if (await store.session.hasDue(0)) options.requestHeartbeat();
      logger.debug({ event: 'runtime.swept' }, 'looked for work left by other instances');
    } catch (error) {
      logger.warn({ event: 'runtime.sweep_failed', err: (error as Error).message }, 'could not look for work left by other instances');
    }
  }

  const schedule = (): void => {
    if (stopped) return;
    timer = clock.setTimer(() => void sweep().finally(schedule), options.everyMs);
  };
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimer(timer);
    },
  };
}
