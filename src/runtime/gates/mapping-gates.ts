import type { Config } from '../../config/schema.js';
import type { AgentAction } from '../../actions/types.js';
import type { BudgetRule, RunGates } from '../../store/port.js';
import type { RunLimitsTable } from './run-limits.js';

/** A target's gates as configured: its circuit rule (else agents.defaults.circuitBreaker) and concurrency. */
export type TargetGateLookup = (target: string) => { circuitBreaker?: { failures: number; openSeconds: number } | undefined; concurrency?: number | undefined } | undefined;

export interface PlanDeps {
  defaults: Config['agents']['defaults'];
  defaultModel: string;
  /** The mappings' limits in force (the gatekeeper swaps it on reload). */
  runLimits: RunLimitsTable;
  recheckMs: number;
  /** Each target's circuit rule and concurrency (docs/forward.md); none: forward and callback runs pass only mapping gates. */
  targets?: TargetGateLookup;
}

/** The service's budget and the mapping's throttle, concurrency key and budget (a preset's mappings share theirs: limits.owner, budgetScope). */
export function mappingGates(action: Pick<AgentAction, 'origin' | 'limitKeys'> | undefined, deps: PlanDeps): RunGates {
  const mappingId = action?.origin.mappingId;
  const limits = mappingId === undefined ? undefined : deps.runLimits.get(mappingId);
  const keys = action?.limitKeys ?? {};
  const budgets: BudgetRule[] = [];
  if (deps.defaults.budget !== undefined) budgets.push({ scope: 'service', ...deps.defaults.budget });
  if (limits?.budget !== undefined) budgets.push({ scope: limits.budgetScope, ...limits.budget });
  const gates: RunGates = { budgets, recheckMs: deps.recheckMs };
  if (limits?.concurrency !== undefined) gates.concurrency = { key: `${limits.owner}:${keys.concurrency ?? ''}`, limit: limits.concurrency.limit };
  if (limits?.throttle !== undefined) {
    const { limit, periodSeconds, burst } = limits.throttle;
    gates.throttle = { bucket: `throttle:${limits.owner}:${keys.throttle ?? ''}`, rule: { limit, periodMs: periodSeconds * 1000, burst: burst ?? 0 } };
  }
  return gates;
}

export function isGated(gates: RunGates): boolean {
  return gates.budgets.length > 0 || gates.concurrency !== undefined || gates.throttle !== undefined || gates.circuit !== undefined;
}
