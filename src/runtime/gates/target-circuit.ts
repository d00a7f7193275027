import type { Logger } from '../../log.js';
import type { CircuitRule, CircuitTransition, LimitStore } from '../../store/port.js';
import type { Clock } from '../clock.js';
import type { Alerter } from './alerts.js';
import { targetCircuitKey } from './handoff-plan.js';

export interface TargetCircuitDeps {
  limits: LimitStore;
  /** A target's circuit rule; undefined: its answers open nothing. */
  rule: (target: string) => CircuitRule | undefined;
  clock: Clock;
  logger: Logger;
  alerter: Alerter;
  /** Wakes the run queue (a circuit closed: its waiting runs may start). */
  pump: () => void;
}

/**
 * Records each handoff's answer against its target's circuit (in the store, shared by every
 * instance): an unreachable target, a timeout, 408/409/425/429 or 5xx count as failures, an
 * accepted or refused request as an answer. Open, its runs wait instead of failing one by one.
 */
export function createTargetCircuits(deps: TargetCircuitDeps): (target: string, failed: boolean) => void {
  return (target, failed) => {
    const rule = deps.rule(target);
    if (rule === undefined) return;
    deps.limits.recordProviderOutcome(targetCircuitKey(target), failed, rule, deps.clock.now()).then(
      (transition) => {
        if (transition !== undefined) announce(target, transition, deps);
      },
      (error: unknown) => deps.logger.warn({ event: 'circuit.record_failed', target, err: (error as Error).message }, 'could not record a target outcome'),
    );
  };
}

function announce(target: string, transition: CircuitTransition, deps: TargetCircuitDeps): void {
  if (transition.kind === 'closed') {
    deps.logger.info({ event: 'circuit.closed', target }, 'target circuit closed: its runs are handed over again');
    deps.alerter.alert(`circuit-closed:${targetCircuitKey(target)}`, `target "${target}" answers again; its circuit is closed and waiting runs go out`);
    deps.limits.wakeWaiting('provider-circuit').then(deps.pump, (error: unknown) => {
      deps.logger.warn({ event: 'runs.gates_wake_failed', err: (error as Error).message }, 'could not wake runs waiting for a target circuit');
    });
    return;
  }
  const until = new Date(transition.until).toISOString();
  deps.logger.warn({ event: `circuit.${transition.kind}`, target, failures: transition.failures, until }, 'target circuit open: its runs wait');
  deps.alerter.alert(`circuit-open:${targetCircuitKey(target)}`, `target "${target}" failed ${transition.failures} times in a row; its circuit is open and its runs wait until ${until}`);
}
