import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from '../log.js';
import { claimRun, listQueuedRuns, type RunRow } from '../store/runtime-repo.js';
import { writeWhenFree } from '../store/write-when-free.js';

export interface RunQueueOptions {
  db: DatabaseSync;
  maxConcurrent: number;
  now: () => number;
  /** Runs one claimed run to its end; records its own outcome. */
  execute: (row: RunRow) => Promise<void>;
  logger: Logger;
}

export interface RunQueue {
  start(): void;
  /** Claims queued runs while slots are free; cheap when there is nothing to do. */
  pump(): void;
  /** Claims nothing more; runs in flight go on (Runtime.stop aborts them). */
  stop(): void;
  inFlight(): Array<Promise<void>>;
}

/**
 * The durable run queue: `runs` rows in `queued` are claimed oldest first (queued → running, the
 * attempts counter incremented) while fewer than maxConcurrent are executing.
 */
export function createRunQueue(options: RunQueueOptions): RunQueue {
  const running = new Map<string, Promise<void>>();
  let stopped = true;

  function pump(): void {
    if (stopped) return;
    const free = options.maxConcurrent - running.size;
    if (free <= 0) return;
    let rows: RunRow[];
    try {
      rows = listQueuedRuns(options.db, free);
    } catch (error) {
      options.logger.error({ event: 'runs.poll_failed', err: (error as Error).message }, 'could not read the run queue');
      return;
    }
    // A run whose claim is still waiting for the write lock is listed again: it already has its slot.
    for (const row of rows) if (!running.has(row.run_id)) launch(row);
  }

  /** Takes a slot at once; the claim (queued → running) is written when the write lock is free. */
  function launch(row: RunRow): void {
    const done = claimThenExecute(row)
      .catch((error: unknown) => {
        options.logger.error({ event: 'run.crashed', runId: row.run_id, err: (error as Error).message }, 'run failed unexpectedly');
      })
      .finally(() => {
        running.delete(row.run_id);
        // Next turn of the event loop: a backlog of instant runs must not crowd out network I/O.
        setImmediate(pump);
      });
    running.set(row.run_id, done);
  }

  async function claimThenExecute(row: RunRow): Promise<void> {
    try {
      // A claim that waited past stop() is not made: the run stays queued for the next start.
      if (!(await writeWhenFree(() => !stopped && claimRun(options.db, row.run_id, options.now())))) return;
    } catch (error) {
      options.logger.error({ event: 'runs.claim_failed', runId: row.run_id, err: (error as Error).message }, 'could not claim a run');
      return;
    }
    await options.execute({ ...row, status: 'running', attempts: row.attempts + 1 });
  }

  return {
    start() {
      stopped = false;
    },
    pump,
    stop() {
      stopped = true;
    },
    inFlight: () => [...running.values()],
  };
}
