import type { Config } from './config/schema.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics/metrics.js';
import type { BudgetRule, LimitOverview, Store } from './store/port.js';
import type { ChannelPort } from './runtime/ports.js';
import { deliverText } from './channels/deliver.js';
import type { Clock } from './runtime/clock.js';
import { createAlerter, type Alerter } from './runtime/gates/alerts.js';
import { budgetRulesOf, type RunLimitsTable } from './runtime/gates/run-limits.js';
import type { RunGateOptions } from './runtime/gates/setup.js';
import type { AdmissionLimits } from './admission/rate-limit.js';
import { createRateRefusals } from './admission/rate-refusals.js';
import { createQueueGuard, type QueueGuard } from './admission/max-queued.js';

export interface FlowControlDeps {
  config: Config;
  store: Store;
  channels: ReadonlyMap<string, ChannelPort>;
  logger: Logger;
  /** The store's time (Store.now) with the process's timers: every instance decides by the same time. */
  clock: Clock;
  /** The mappings' run limits in force, as the mapping engine compiled them (a reload swaps them). */
  runLimits: () => RunLimitsTable;
}

export interface FlowControl {
  /** For the mapping engine: rate limits at admission. */
  admission(metrics: Metrics): AdmissionLimits;
  /** For the hook handlers: agents.defaults.maxQueued. */
  queueGuard(metrics: Metrics): QueueGuard;
  /** For the runtime: the run gates (it is handed each reload's mapping limits through Runtime.setRunLimits). */
  runtimeGates(): RunGateOptions;
  /** Waiting runs, budgets, circuits: metrics, `hookgate status`, the console. */
  overview(): Promise<LimitOverview>;
  /** The budgets enforced now: the service's as it started, each mapping's as the mappings in force say. */
  budgetRules(): BudgetRule[];
  readonly alerter: Alerter;
}

/** The service's flow control (docs/run-limits.md, docs/flow-control.md), wired from its parts. */
export function createFlowControl(deps: FlowControlDeps): FlowControl {
  const { config, store, logger } = deps;
  const alerter = createAlerter({
    config: config.agents.defaults.alerts,
    channels: deps.channels,
    deliver: (channel, to, text, options) => deliverText(channel, to, text, { signal: options.signal, logger }),
    limits: store.limits,
    clock: deps.clock,
    logger,
    lastRecipient: (channel) => store.deliveries.lastRecipient(channel),
  });
  const budgetRules = (): BudgetRule[] => budgetRulesOf(config.agents.defaults.budget, deps.runLimits());
  return {
    alerter,
    budgetRules,
    runtimeGates: () => ({ limits: store.limits, runLimits: deps.runLimits(), alerter }),
    admission: (metrics) => ({
      store: store.limits,
      refusals: createRateRefusals(),
      now: () => deps.clock.now(),
      onLimited(mappingId, over) {
        if (over === 'reject') return metrics.limits.hookRejected(mappingId, 'rate-limit');
        metrics.admission.skipped(mappingId, 'rate-limit');
        alerter.alert(`rate-limit:${mappingId}`, `mapping "${mappingId}" is over its rate limit and skips deliveries`);
      },
    }),
    queueGuard: (metrics) =>
      createQueueGuard({
        maxQueued: config.agents.defaults.maxQueued,
        depths: () => store.depths(),
        joinsOpenGroup: (joins, at) => store.debounce.joinsOpenGroup(joins, at),
        now: () => deps.clock.now(),
        onRefused: (label) => metrics.limits.hookRejected(label, 'queue-full'),
      }),
    overview: () => store.limits.overview(budgetRules(), deps.clock.now()),
  };
}
