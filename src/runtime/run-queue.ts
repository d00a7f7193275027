import type { Logger } from '../log.js';
import type { RunRow } from '../store/port.js';
import type { Clock, TimerHandle } from './clock.js';
import type { RuntimeStore } from './ports.js';
import type { RunGatekeeper } from './gates/gatekeeper.js';

/** How long a claim is held without renewal; renewed every third of it while the run executes. */
export const DEFAULT_LEASE_MS = 60_000;

export interface RunQueueOptions {
  store: RuntimeStore;
  /** This runtime's id: the owner of its claims. */
  owner: string;
  maxConcurrent: number;
  clock: Clock;
  /** Runs one claimed run to its end; records its own outcome. */
  execute: (row: RunRow) => Promise<void>;
  logger: Logger;
  leaseMs?: number;
  /** Nothing is claimed before it resolves (the runtime's start-up recovery); a rejection claims nothing. */
  ready?: () => Promise<void>;
  /** Run limits (gates/): a gated run is claimed only when its gates let it start, else it waits queued. */
  gates?: RunGatekeeper;
}

export interface RunQueue {
  start(): void;
  /** Claims queued runs while slots are free; cheap when there is nothing to do. */
  pump(): void;
  /** Claims nothing more; runs in flight go on (Runtime.stop aborts them). */
  stop(): void;
  /** Runs executing and reads of the queue not yet done (a read may still launch runs). */
  inFlight(): Array<Promise<void>>;
}

/**
 * The durable run queue: queued runs are claimed oldest first (queued → running under this
 * runtime's lease, the attempts counter incremented) while fewer than maxConcurrent are executing.
 */
export function createRunQueue(options: RunQueueOptions): RunQueue {
  const running = new Map<string, Promise<void>>();
  /** Pumps between their call and their launches: what they read may start runs. */
  const reading = new Set<Promise<void>>();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  let stopped = true;
  let stopping = new AbortController();

  /** A pump that inFlight() reports until it is done; `after` delays its start. */
  function trackedPump(after?: Promise<void>): void {
    const read: Promise<void> = (after === undefined ? pump() : after.then(pump)).finally(() => reading.delete(read));
    reading.add(read);
  }

  async function pump(): Promise<void> {
    if (stopped || options.maxConcurrent - running.size <= 0) return;
    let rows: RunRow[];
    try {
      await options.ready?.();
      // Runs held until later (a gate, a forward's retry) are not listed: they would take a slot only to wait again.
      rows = await options.store.runs.listQueued(options.maxConcurrent - running.size, options.clock.now());
    } catch (error) {
      options.logger.error({ event: 'runs.poll_failed', err: (error as Error).message }, 'could not read the run queue');
      return;
    }
    // A run whose claim is still being written is listed again: it already has its slot. Slots are
    // counted again after the read: another pump may have filled them meanwhile.
    for (const row of rows) if (!stopped && running.size < options.maxConcurrent && !running.has(row.run_id)) launch(row);
  }

  /** Takes a slot at once; the claim (queued → running) is written when the store can. */
  function launch(row: RunRow): void {
    const done = claimThenExecute(row)
      .catch((error: unknown) => {
        options.logger.error({ event: 'run.crashed', runId: row.run_id, err: (error as Error).message }, 'run failed unexpectedly');
      })
      .finally(() => {
        running.delete(row.run_id);
        // Next turn of the event loop: a backlog of instant runs must not crowd out network I/O.
        trackedPump(new Promise<void>((resolve) => setImmediate(resolve)));
      });
    running.set(row.run_id, done);
  }

  async function claimThenExecute(row: RunRow): Promise<void> {
    // A claim that waited past stop() is not made: the run stays queued for the next start.
    if (stopped || !(await claim(options, row, leaseMs, stopping.signal))) return;
    const renewal = keepLease(options, row.run_id, leaseMs);
    try {
      await options.execute({ ...row, status: 'running', attempts: row.attempts + 1 });
    } finally {
      renewal.stop();
      await options.gates?.released(row.run_id);
    }
  }

  return {
    start() {
      stopped = false;
      stopping = new AbortController();
      options.gates?.start(() => void pump());
    },
    pump: () => trackedPump(),
    stop() {
      stopped = true;
      stopping.abort();
      options.gates?.stop();
    },
    inFlight: () => [...running.values(), ...reading],
  };
}

/** queued → running under this runtime's lease; false when another claimer got it or the claim failed (logged). */
async function claim(options: RunQueueOptions, row: RunRow, leaseMs: number, signal: AbortSignal): Promise<boolean> {
  const at = options.clock.now();
  const claimed = { owner: options.owner, at, leaseUntil: at + leaseMs, signal };
  try {
    return (await options.gates?.claim(row, claimed)) ?? (await options.store.runs.claim(row.run_id, claimed));
  } catch (error) {
    options.logger.error({ event: 'runs.claim_failed', runId: row.run_id, err: (error as Error).message }, 'could not claim a run');
    return false;
  }
}

/** Renews a claim every third of its lease while the run executes, so no other instance takes it over. */
function keepLease(options: RunQueueOptions, runId: string, leaseMs: number): { stop(): void } {
  let timer: TimerHandle | undefined;
  const renew = (): void => {
    timer = options.clock.setTimer(renew, leaseMs / 3);
    options.store.runs.renewLease(runId, options.owner, options.clock.now() + leaseMs).then(
      (held) => {
        if (!held) options.logger.warn({ event: 'run.lease_lost', runId }, 'another executor took this run over');
      },
      (error: unknown) => options.logger.warn({ event: 'run.lease_renew_failed', runId, err: (error as Error).message }, 'could not renew a run lease'),
    );
  };
  timer = options.clock.setTimer(renew, leaseMs / 3);
  return {
    stop() {
      if (timer !== undefined) options.clock.clearTimer(timer);
    },
  };
}
