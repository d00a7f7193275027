import { randomUUID } from 'node:crypto';
import { runIdOf, type AdmittedAction } from '../actions/types.js';
import { createModelPolicy, type ModelCatalogs } from '../actions/models.js';
import { deliverText } from '../channels/deliver.js';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { newTimeOrderedId } from '../actions/ids.js';
import type { ForceOutcome, RetryOutcome, RunRow } from '../store/port.js';
import { executeRun } from './agent-run.js';
import { executeNotify } from './notify-run.js';
import { realClock, type Clock, type TimerHandle } from './clock.js';
import { parseDuration } from './duration.js';
import { createHeartbeatScheduler } from './heartbeat.js';
import { runHeartbeat } from './main-session.js';
import type { ChannelPort, DeliverFn, ProviderPort, RuntimeObserver, RuntimeStore, TargetPort } from './ports.js';
import { executeForward, type ForwardRunDeps } from './forward-run.js';
import { createRetryWaker } from './forward-retry.js';
import { recoverUnfinished } from './recovery.js';
import { startSharedSweep } from './shared-sweep.js';
import type { RoutingDeps } from './routing.js';
import { ANY_RECIPIENT, type RecipientPolicy } from '../channels/recipients.js';
import { createRunQueue } from './run-queue.js';
import { setUpGates, type RunGateOptions } from './gates/setup.js';
import type { RunLimitsTable } from './gates/run-limits.js';

/** Characters of earlier exchanges sent with a turn; older exchanges are dropped first. */
export const DEFAULT_HISTORY_BUDGET_CHARS = 32_000;
/** How long stop() waits for aborted turns and deliveries to wind down. */
export const DEFAULT_STOP_GRACE_MS = 5_000;

export interface Runtime {
  /**
   * Resumes what a previous process left (see recovery.ts), then takes work: queued runs, pending
   * events, periodic heartbeats. Resolves once it takes work (whenIdle() waits for that too).
   */
  start(): Promise<void>;
  /** From store.onCommitted: agent actions wake the run queue; a wake with mode `now` requests a heartbeat. */
  notify(actions: readonly AdmittedAction[]): void;
  /** Takes no more work, aborts running turns (runs recorded `interrupted`, resumed by the next start), waits (bounded). */
  stop(): Promise<void>;
  /**
   * Resolves when no heartbeat and no run is executing and no read of the run queue is under way
   * (a read may still start runs; timers not yet due are not waited for).
   */
  whenIdle(): Promise<void>;
  /** Queues a manual retry of a failed, timed-out or interrupted run (the store's runs.retry) and wakes the queue. */
  retry(runId: string): Promise<RetryOutcome>;
  /** Lets a queued run start past its budget and throttle (`hookgate runs start --force`, the console's button); logged. Needs `gates`. */
  forceStart(runId: string, by: string): Promise<ForceOutcome>;
  /**
   * The mappings' run limits of a reloaded config (their throttle, concurrency and budget, as the
   * engine compiled them): when they changed, every waiting run is decided again under them, the
   * oldest first, before any newer run may start. Without `gates`, nothing to do.
   */
  setRunLimits(table: RunLimitsTable): void;
}

export interface RuntimeOptions {
  store: RuntimeStore;
  /** Owner of this runtime's run claims; unique per process (default: a random UUID). */
  instanceId?: string;
  defaults: Config['agents']['defaults'];
  providers: ReadonlyMap<string, ProviderPort>;
  channels: ReadonlyMap<string, ChannelPort>;
  /** Splits, retries, reports; defaults to src/channels/deliver.ts deliverText. */
  deliver?: DeliverFn;
  /** channels.<id>.allowTo; none → any recipient. */
  recipients?: RecipientPolicy;
  logger: Logger;
  clock?: Clock;
  historyBudgetChars?: number;
  stopGraceMs?: number;
  observer?: RuntimeObserver;
  /** How long a run's claim holds without renewal (run-queue.ts; default 60 s). */
  leaseMs?: number;
  /**
   * Set when other instances share the store (PostgreSQL): how often to look for their work and
   * for runs a dead instance left (shared-sweep.ts). Unset: this process is the store's only user.
   */
  sharedSweepMs?: number;
  /** models.providers.<id>.models: a bare default model resolves through them. */
  catalogs?: ModelCatalogs;
  /** Run limits (throttle, concurrency keys, budgets, provider circuits: gates/); absent, only maxConcurrent bounds runs. */
  gates?: RunGateOptions;
  /** The configured targets of forwarded actions and callbacks (docs/forward.md), by name. */
  targets?: ReadonlyMap<string, TargetPort>;
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const { store, defaults, logger } = options;
  const clock = options.clock ?? realClock;
  const shutdown = new AbortController();
  const historyBudgetChars = options.historyBudgetChars ?? DEFAULT_HISTORY_BUDGET_CHARS;
  const defaultModel = createModelPolicy(defaults, options.catalogs).defaultModel;
  const routing: RoutingDeps = {
    store,
    defaults,
    channels: options.channels,
    deliver:
      options.deliver ??
      ((channel, to, text, o) =>
        deliverText(channel, to, text, {
          signal: o.signal,
          logger,
          ...(o.untrusted === true ? { untrusted: true } : {}),
          // What it posts, so the sender's webhook for it is skipped as the service's own (src/own-messages.ts).
          remember: (marks) => store.ownMessages.remember(channel.name, marks, clock.now()),
        })),
    recipients: options.recipients ?? ANY_RECIPIENT,
    logger,
    now: () => clock.now(),
    signal: shutdown.signal,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  };
  const targets = options.targets ?? new Map<string, TargetPort>();
  const gates = setUpGates(options.gates, { defaults, defaultModel, providers: options.providers, targets, clock, logger, pump: () => queue.pump() });
  const retries = createRetryWaker(clock, () => queue.pump());
  const handoffs: ForwardRunDeps = {
    store,
    clock,
    logger,
    targets,
    signal: shutdown.signal,
    wakeAt: retries.wakeAt,
    ...(gates.recordTargetOutcome === undefined ? {} : { recordOutcome: gates.recordTargetOutcome }),
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  };
  const common = { store, clock, providers: gates.providers, defaults, historyBudgetChars, routing, logger, ...(options.observer === undefined ? {} : { observer: options.observer }) };
  const heartbeat = createHeartbeatScheduler({
    clock,
    everyMs: heartbeatPeriod(defaults),
    beat: async () => {
      await recovered; // no new work before start-up recovery is written
      if (catchUp !== undefined) {
        const pendingAtStart = catchUp;
        catchUp = undefined;
        if ((await pendingAtStart) === 0) return { kind: 'idle' };
      }
      return runHeartbeat({ ...common, modelRef: defaultModel });
    },
    onTick: () => queue.pump(),
    logger,
  });
  const queue = createRunQueue({
    store,
    owner: options.instanceId ?? randomUUID(),
    maxConcurrent: defaults.maxConcurrent,
    clock,
    execute: (row) => execute(row),
    ready: () => recovered,
    logger,
    ...(gates.gatekeeper === undefined ? {} : { gates: gates.gatekeeper }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  let sweep: { stop(): void } | undefined;
  let state: 'new' | 'started' | 'stopped' = 'new';
  /** Start-up recovery (recovery.ts): heartbeats and claims wait for it. */
  let recovered: Promise<void> = Promise.resolve();
  /** Set while the only heartbeat asked for is start()'s catch-up: it runs only if events were pending at start. */
  let catchUp: Promise<number> | undefined;
  function requestHeartbeat(): void {
    catchUp = undefined;
    heartbeat.request();
  }
  function execute(row: RunRow): Promise<void> {
    if (row.kind === 'notify') return executeNotify(common, row);
    if (row.kind === 'forward' || row.kind === 'callback') return executeForward(handoffs, row);
    return executeRun({ ...common, defaultModel, requestHeartbeat }, row);
  }

  const inFlight = (): Array<Promise<void>> => [heartbeat.current(), ...queue.inFlight()].filter((p) => p !== undefined);

  return {
    start() {
      if (state !== 'new') return recovered;
      state = 'started';
      recovered = recoverUnfinished(store, clock.now(), logger).then(() => undefined);
      heartbeat.start();
      queue.start();
      queue.pump();
      // After a restart, events may have waited past their tick: catch up at once. The request is
      // made now; the beat waits for the count of events created up to now, not of all pending
      // ones: the store may answer later (a pool waiting for a connection), after a run has ended
      // and posted a summary whose wakeMode says to wait for the periodic tick.
      catchUp = store.session.countPending(clock.now()).catch(() => 1); // unknown: catch up
      heartbeat.request();
      if (options.sharedSweepMs !== undefined) {
        sweep = startSharedSweep({ store, clock, everyMs: options.sharedSweepMs, logger, pumpRuns: () => queue.pump(), requestHeartbeat });
      }
      return recovered;
    },
    notify(actions) {
      if (state !== 'started') return;
      if (actions.some((action) => action.kind === 'wake' && action.forward === undefined && action.mode === 'now')) requestHeartbeat();
      // A relay run waits for its consumers (src/relay/), never for this queue.
      if (actions.some((action) => runIdOf(action) !== undefined && !(action.kind !== 'notify' && action.relay === true))) queue.pump();
    },
    async stop() {
      if (state === 'stopped') return;
      state = 'stopped';
      sweep?.stop();
      retries.stop();
      queue.stop();
      const stopping = heartbeat.stop();
      shutdown.abort();
      await withinGrace(clock, Promise.allSettled([stopping, ...inFlight()]), options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
    },
    async whenIdle() {
      await recovered.catch(() => undefined);
      for (let pending = inFlight(); pending.length > 0; pending = inFlight()) await Promise.allSettled(pending);
    },
    async retry(runId) {
      const outcome = await store.runs.retry(runId, newTimeOrderedId(), clock.now());
      if (outcome.kind === 'queued') {
        logger.info({ event: 'run.retry_queued', runId: outcome.runId, retryOf: runId }, 'run queued again as a retry');
        queue.pump();
      }
      return outcome;
    },
    async forceStart(runId, by) {
      if (options.gates === undefined) return { kind: 'not-found' };
      const outcome = await options.gates.limits.forceStart(runId, clock.now());
      if (outcome.kind === 'forced') {
        logger.warn({ event: 'run.force_started', runId, by }, 'run started by hand past its budget and throttle');
        queue.pump();
      }
      return outcome;
    },
    setRunLimits(table) {
      gates.gatekeeper?.setRunLimits(table);
    },
  };
}

async function withinGrace(clock: Clock, work: Promise<unknown>, graceMs: number): Promise<void> {
  let timer: TimerHandle | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = clock.setTimer(resolve, graceMs);
  });
  await Promise.race([work, grace]);
  if (timer !== undefined) clock.clearTimer(timer);
}

function heartbeatPeriod(defaults: Config['agents']['defaults']): number {
  try {
    return parseDuration(defaults.heartbeat.every);
  } catch (error) {
    throw new ConfigError([{ path: '/agents/defaults/heartbeat/every', message: (error as Error).message }]);
  }
}
