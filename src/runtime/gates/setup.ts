import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { CircuitRule, CircuitTransition, LimitStore } from '../../store/port.js';
import type { Clock } from '../clock.js';
import type { ProviderPort, TargetPort } from '../ports.js';
import { createTargetCircuits } from './target-circuit.js';
import { NO_ALERTS, type Alerter } from './alerts.js';
import { withCircuits } from './circuit.js';
import { createGatekeeper, type RunGatekeeper } from './gatekeeper.js';
import { DEFAULT_RECHECK_MS } from './plan.js';
import { NO_RUN_LIMITS, type RunLimitsTable } from './run-limits.js';

/** What the runtime needs for run limits (RuntimeOptions.gates); without it runs are only bounded by maxConcurrent. */
export interface RunGateOptions {
  limits: LimitStore;
  /** Each mapping's throttle, concurrency and budget as compiled at start (Runtime.setRunLimits hands over a reload's); none: only service-wide limits apply. */
  runLimits?: RunLimitsTable;
  alerter?: Alerter;
  /** See DEFAULT_RECHECK_MS. */
  recheckMs?: number;
}

export interface GateSetupBase {
  defaults: Config['agents']['defaults'];
  defaultModel: string;
  providers: ReadonlyMap<string, ProviderPort>;
  /** The configured targets (docs/forward.md): their circuits and concurrency gate their runs. */
  targets?: ReadonlyMap<string, TargetPort>;
  clock: Clock;
  logger: Logger;
  /** Wakes the run queue (a circuit closed: its waiting runs may start). */
  pump: () => void;
}

export interface SetUpGates {
  gatekeeper: RunGatekeeper | undefined;
  providers: ReadonlyMap<string, ProviderPort>;
  /** Counts a handoff's answer against its target's circuit (absent without run limits). */
  recordTargetOutcome?: (target: string, failed: boolean) => void;
}

/** The run queue's gatekeeper and the providers as the runtime calls them (behind their circuits when a breaker is configured). */
export function setUpGates(options: RunGateOptions | undefined, base: GateSetupBase): SetUpGates {
  if (options === undefined) return { gatekeeper: undefined, providers: base.providers };
  const alerter = options.alerter ?? NO_ALERTS;
  const targetGates = (name: string) => base.targets?.get(name)?.settings;
  const recordTargetOutcome = createTargetCircuits({ limits: options.limits, rule: (name) => circuitRule(targetGates(name)?.circuitBreaker ?? base.defaults.circuitBreaker), clock: base.clock, logger: base.logger, alerter, pump: base.pump });
  const gatekeeper = createGatekeeper({
    defaults: base.defaults,
    defaultModel: base.defaultModel,
    runLimits: options.runLimits ?? NO_RUN_LIMITS,
    recheckMs: options.recheckMs ?? DEFAULT_RECHECK_MS,
    limits: options.limits,
    clock: base.clock,
    logger: base.logger,
    alerter,
    targets: targetGates,
  });
  const breaker = base.defaults.circuitBreaker;
  if (breaker === undefined) return { gatekeeper, providers: base.providers, recordTargetOutcome };
  const onTransition = (provider: string, transition: CircuitTransition): void => {
    announce(provider, transition, base, alerter);
    if (transition.kind !== 'closed') return;
    options.limits.wakeWaiting('provider-circuit').then(base.pump, (error: unknown) => {
      base.logger.warn({ event: 'runs.gates_wake_failed', err: (error as Error).message }, 'could not wake runs waiting for a provider circuit');
    });
  };
  const rule = { failures: breaker.failures, openMs: breaker.openSeconds * 1000 };
  return { gatekeeper, providers: withCircuits(base.providers, { limits: options.limits, rule, clock: base.clock, logger: base.logger, onTransition }), recordTargetOutcome };
}

function circuitRule(breaker: { failures: number; openSeconds: number } | undefined): CircuitRule | undefined {
  return breaker === undefined ? undefined : { failures: breaker.failures, openMs: breaker.openSeconds * 1000 };
}

function announce(provider: string, transition: CircuitTransition, base: GateSetupBase, alerter: Alerter): void {
  if (transition.kind === 'closed') {
    base.logger.info({ event: 'circuit.closed', provider }, 'provider circuit closed: its runs start again');
    alerter.alert(`circuit-closed:${provider}`, `provider "${provider}" answers again; its circuit is closed and waiting runs start`);
    return;
  }
  const until = new Date(transition.until).toISOString();
  base.logger.warn({ event: `circuit.${transition.kind}`, provider, failures: transition.failures, until }, 'provider circuit open: its runs wait');
  alerter.alert(`circuit-open:${provider}`, `provider "${provider}" failed ${transition.failures} times in a row; its circuit is open and its runs wait until ${until}`);
}
