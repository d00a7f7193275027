import type { Config } from './config/schema.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics/metrics.js';
import type { BudgetRule, LimitOverview, Store } from './store/port.js';
import type { ChannelPort } from './runtime/ports.js';
import { deliverText } from './channels/deliver.js';
import { realClock } from './runtime/clock.js';
import { createAlerter, type Alerter } from './runtime/gates/alerts.js';
import { budgetRulesOf, runLimitsOf, type RunLimitsLookup } from './runtime/gates/run-limits.js';
import type { RunGateOptions } from './runtime/gates/setup.js';
import type { AdmissionLimits } from './admission/rate-limit.js';
import { createRateRefusals } from './admission/rate-refusals.js';
import { createQueueGuard } from './admission/max-queued.js';
import type { AdmittedAction } from './actions/types.js';

export interface FlowControlDeps {
  config: Config;
  store: Store;
  channels: ReadonlyMap<string, ChannelPort>;
  logger: Logger;
  /** The hooks block in force (a reload changes mappings' limits for runs still queued). */
  hooks: () => Config['hooks'];
}

export interface FlowControl {
  /** For the mapping engine: rate limits at admission. */
  admission(metrics: Metrics): AdmissionLimits;
  /** For the hook handlers: agents.defaults.maxQueued. */
  queueGuard(metrics: Metrics): (actions: readonly AdmittedAction[], hook: string) => Promise<void>;
  /** For the runtime: the run gates. */
  readonly runtimeGates: RunGateOptions;
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
    clock: realClock,
    logger,
    lastRecipient: (channel) => store.deliveries.lastRecipient(channel),
  });
  let cached: { hooks: Config['hooks']; lookup: RunLimitsLookup } | undefined;
  const runLimits: RunLimitsLookup = (mappingId) => {
    const hooks = deps.hooks();
    if (cached?.hooks !== hooks) cached = { hooks, lookup: runLimitsOf(hooks) };
    return cached.lookup(mappingId);
  };
  const budgetRules = (): BudgetRule[] => budgetRulesOf({ hooks: deps.hooks(), agents: config.agents });
  return {
    alerter,
    budgetRules,
    runtimeGates: { limits: store.limits, runLimits, alerter },
    admission: (metrics) => ({
      store: store.limits,
      refusals: createRateRefusals(),
      now: () => realClock.now(),
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
        now: () => realClock.now(),
        onRefused: (label) => metrics.limits.hookRejected(label, 'queue-full'),
      }),
    overview: () => store.limits.overview(budgetRules(), realClock.now()),
  };
}
