import type { Logger } from '../../log.js';
import type { GateOutcome, LimitStore, RunClaim, RunGates, RunRow } from '../../store/port.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { Alerter } from './alerts.js';
import { planGates, type PlanDeps } from './plan.js';
import { sameRunLimits, type RunLimitsTable } from './run-limits.js';

/** What the run queue asks of the gates (run-queue.ts); absent, every run is claimed as it comes. */
export interface RunGatekeeper {
  /** Claims a run through its gates: true started, false waits or was taken; undefined when no gate applies (claim it plainly). */
  claim(row: RunRow, claim: RunClaim): Promise<boolean | undefined>;
  /** A claimed run ended: runs waiting for its concurrency key are looked at again. */
  released(runId: string): Promise<void>;
  /**
   * Wakes the queue (pump) when the earliest waiting run may start. Every waiting run is decided
   * again first: the limits may have changed while no runtime ran (a restart with a raised budget).
   */
  start(pump: () => void): void;
  /** The mappings' limits in force changed (a reload): every waiting run is decided again under them. */
  setRunLimits(table: RunLimitsTable): void;
  stop(): void;
}

export interface GatekeeperDeps extends PlanDeps {
  limits: LimitStore;
  clock: Clock;
  logger: Logger;
  alerter: Alerter;
}

export function createGatekeeper(deps: GatekeeperDeps): RunGatekeeper {
  const claimed = new Map<string, RunGates>();
  let table = deps.runLimits;
  let pump: () => void = () => undefined;
  let timer: { handle: TimerHandle; at: number } | undefined;
  let stopped = true;
  /** Gated claims under way: a re-decision waits for them, so none writes a wait decided under the old limits after it. */
  const deciding = new Set<Promise<unknown>>();
  /** Set while waiting runs are being made due again; claims asked for meanwhile are not made (see claim). */
  let reconsidering: Promise<void> | undefined;

  /** One timer, at the earliest time a waiting run may start; a later wake never replaces an earlier one. */
  function wakeAt(at: number): void {
    if (stopped || (timer !== undefined && timer.at <= at)) return;
    if (timer !== undefined) deps.clock.clearTimer(timer.handle);
    const handle = deps.clock.setTimer(() => {
      timer = undefined;
      pump();
      void refresh();
    }, at - deps.clock.now());
    timer = { handle, at };
  }

  async function refresh(): Promise<void> {
    try {
      const next = await deps.limits.nextNotBefore();
      if (next !== undefined) wakeAt(next);
    } catch (error) {
      deps.logger.warn({ event: 'runs.gates_read_failed', err: (error as Error).message }, 'could not read when waiting runs may start');
    }
  }

  /**
   * Makes every waiting run due at once, so the queue lists them again, oldest first, and decides
   * each under the limits in force: a raised budget frees them before any newer run can start.
   */
  function reconsider(): void {
    const previous = reconsidering ?? Promise.resolve();
    const inFlight = [...deciding];
    const done: Promise<void> = previous
      .then(() => Promise.allSettled(inFlight))
      .then(() => deps.limits.wakeWaiting('any'))
      .catch((error: unknown) => {
        deps.logger.warn({ event: 'runs.gates_wake_failed', err: (error as Error).message }, 'could not decide waiting runs again under new limits');
      })
      .finally(() => {
        if (reconsidering === done) reconsidering = undefined;
        if (!stopped) pump();
      });
    reconsidering = done;
  }

  function waited(row: RunRow, outcome: Extract<GateOutcome, { kind: 'waiting' }>): void {
    deps.logger.debug({ event: 'run.waiting', runId: row.run_id, waitingFor: outcome.waitingFor, notBefore: outcome.notBefore }, 'run waits for a limit');
    wakeAt(outcome.notBefore);
    if (outcome.waitingFor === 'budget' && outcome.scope !== undefined) {
      const until = new Date(outcome.notBefore).toISOString();
      deps.alerter.alert(`budget:${outcome.scope}`, `run budget of ${outcome.scope} is used up; runs wait (the next may start at ${until})`);
    }
  }

  async function claimGated(row: RunRow, claim: RunClaim, gates: RunGates): Promise<boolean> {
    const decided = deps.limits.claimGated(row.run_id, claim, gates);
    deciding.add(decided);
    const outcome = await decided.finally(() => deciding.delete(decided));
    if (outcome.kind === 'claimed') {
      claimed.set(row.run_id, gates);
      if (outcome.probe) deps.logger.info({ event: 'circuit.probe', runId: row.run_id, provider: gates.circuit?.provider }, 'run probes an open provider circuit');
      return true;
    }
    if (outcome.kind === 'waiting') waited(row, outcome);
    return false;
  }

  return {
    async claim(row, claim) {
      // Listed before the waiting runs were made due again: older runs may now come first. The
      // run stays queued; the pump that follows the re-decision lists it again in its turn.
      if (reconsidering !== undefined) {
        await reconsidering;
        return false;
      }
      const gates = planGates(row, { ...deps, runLimits: table });
      if (gates === undefined) return undefined;
      return claimGated(row, claim, gates);
    },
    async released(runId) {
      const gates = claimed.get(runId);
      claimed.delete(runId);
      if (gates?.concurrency === undefined) return;
      await deps.limits.wakeWaiting('concurrency', gates.concurrency.key).catch((error: unknown) => {
        deps.logger.warn({ event: 'runs.gates_wake_failed', err: (error as Error).message }, 'could not wake runs waiting for a concurrency key');
      });
    },
    start(next) {
      stopped = false;
      pump = next;
      reconsider();
      void refresh();
    },
    setRunLimits(next) {
      if (sameRunLimits(table, next)) return;
      table = next;
      if (!stopped) reconsider();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) deps.clock.clearTimer(timer.handle);
      timer = undefined;
    },
  };
}
