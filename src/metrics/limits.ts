import { Counter, Gauge, type Registry } from 'prom-client';
import type { CircuitState, LimitOverview } from '../store/port.js';
import { oneReadPerScrape } from './scrape-read.js';

/** Refusals by admission limits, for the rate limiter and the queue guard (src/admission/); skips are counted with the other skips (metrics/admission.ts). */
export interface LimitObserver {
  /** A delivery refused by a limit: `rate-limit` (429) or `queue-full` (503, maxQueued). */
  hookRejected(mapping: string, reason: string): void;
}

/** hookgate_provider_circuit_state's values. */
const CIRCUIT_STATE_VALUES: Readonly<Record<CircuitState, number>> = { closed: 0, probing: 1, open: 2 };

const bounded = (value: string): string => (value.length <= 100 ? value : value.slice(0, 100));

/**
 * The limit metrics: a counter, and three gauges read from the store at scrape time (one read
 * serves all three), so every instance reports the shared state the same way.
 */
export function createLimitMetrics(registers: Registry[], overview: (() => Promise<LimitOverview>) | undefined): LimitObserver {
  const rejected = new Counter({
    name: 'hookgate_hook_rejected_total',
    help: 'Deliveries refused by a limit, by mapping and reason (rate-limit: 429; queue-full: 503 past agents.defaults.maxQueued).',
    labelNames: ['mapping', 'reason'],
    registers,
  });
  if (overview !== undefined) registerLimitGauges(overview, registers);
  return {
    hookRejected: (mapping, reason) => rejected.inc({ mapping: bounded(mapping), reason }),
  };
}

function registerLimitGauges(loadOverview: () => Promise<LimitOverview>, registers: Registry[]): void {
  const readOverview = oneReadPerScrape(loadOverview);
  new Gauge({
    name: 'hookgate_runs_waiting',
    help: 'Queued runs by what they wait for (slot, throttle, concurrency, budget, provider-circuit).',
    labelNames: ['reason'],
    registers,
    async collect() {
      const overview = await readOverview();
      if (overview !== undefined) for (const [reason, count] of Object.entries(overview.waiting)) this.set({ reason }, count);
    },
  });
  new Gauge({
    name: 'hookgate_budget_remaining',
    help: 'Run starts left in each budget window (scope: service, mapping:<id> or preset:<name>; window: hour or day).',
    labelNames: ['scope', 'window'],
    registers,
    async collect() {
      const overview = await readOverview();
      if (overview !== undefined) for (const budget of overview.budgets) this.set({ scope: bounded(budget.scope), window: budget.window }, budget.remaining);
    },
  });
  new Gauge({
    name: 'hookgate_provider_circuit_state',
    help: 'Each provider circuit: 0 closed, 1 probing (half-open), 2 open.',
    labelNames: ['provider'],
    registers,
    async collect() {
      const overview = await readOverview();
      if (overview !== undefined) for (const circuit of overview.circuits) this.set({ provider: bounded(circuit.provider) }, CIRCUIT_STATE_VALUES[circuit.state]);
    },
  });
}
