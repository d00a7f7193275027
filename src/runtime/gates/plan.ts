import type { Config } from '../../config/schema.js';
import type { BudgetRule, RunGates, RunRow } from '../../store/port.js';
import { parseStoredAction } from '../stored-action.js';
import { splitModelRef } from '../provider-call.js';
import type { RunLimitsTable } from './run-limits.js';

/** How long a wait with no known end (a key's slot held by another run, a probe in flight) goes before the run is looked at again. */
export const DEFAULT_RECHECK_MS = 30_000;

export interface PlanDeps {
  defaults: Config['agents']['defaults'];
  defaultModel: string;
  /** The mappings' limits in force (the gatekeeper swaps it on reload). */
  runLimits: RunLimitsTable;
  recheckMs: number;
}

/**
 * The gates a queued run passes before it starts: its mapping's concurrency key, throttle and
 * budget, the service's budget and its provider's circuit. Undefined when none applies, so the
 * run is claimed as it always was (so is a notify, which calls no model). Keys were rendered at admission (action.limitKeys); a mapping
 * given a limit since then holds its earlier runs in one shared bucket.
 */
export function planGates(row: RunRow, deps: PlanDeps): RunGates | undefined {
  // A notify sends text to a channel and calls no model: no budget, throttle or circuit is about it.
  if (row.kind === 'notify') return undefined;
  const action = parseStoredAction(row, 'agent');
  const mappingId = action?.origin.mappingId;
  const limits = mappingId === undefined ? undefined : deps.runLimits.get(mappingId);
  const keys = action?.limitKeys ?? {};
  const budgets: BudgetRule[] = [];
  if (deps.defaults.budget !== undefined) budgets.push({ scope: 'service', ...deps.defaults.budget });
  if (limits?.budget !== undefined) budgets.push({ scope: `mapping:${mappingId}`, ...limits.budget });
  const gates: RunGates = { budgets, recheckMs: deps.recheckMs };
  if (limits?.concurrency !== undefined) gates.concurrency = { key: `${mappingId}:${keys.concurrency ?? ''}`, limit: limits.concurrency.limit };
  if (limits?.throttle !== undefined) {
    const { limit, periodSeconds, burst } = limits.throttle;
    gates.throttle = { bucket: `throttle:${mappingId}:${keys.throttle ?? ''}`, rule: { limit, periodMs: periodSeconds * 1000, burst: burst ?? 0 } };
  }
  const breaker = deps.defaults.circuitBreaker;
  const provider = splitModelRef(action?.model ?? deps.defaultModel)?.providerId;
  if (breaker !== undefined && provider !== undefined) gates.circuit = { provider, rule: { failures: breaker.failures, openMs: breaker.openSeconds * 1000 } };
  const gated = budgets.length > 0 || gates.concurrency !== undefined || gates.throttle !== undefined || gates.circuit !== undefined;
  return gated ? gates : undefined;
}
