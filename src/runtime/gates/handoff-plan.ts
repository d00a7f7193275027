import type { Config } from '../../config/schema.js';
import type { RunGates, RunRow } from '../../store/port.js';
import { parseCallbackAction } from '../callback.js';
import { isGated, mappingGates, type PlanDeps } from './mapping-gates.js';

/** The key a target's circuit has among the provider circuits (one table for both). */
export function targetCircuitKey(target: string): string {
  return `target:${target}`;
}

/**
 * A forward run passes its mapping's gates (budgets, throttle, concurrency key: it is a run like
 * any other) and its target's circuit; a target's `concurrency` replaces the mapping's key, so
 * the gateway never holds more than that many at once. A callback passes only its target's gates.
 */
export function planHandoffGates(row: RunRow, deps: PlanDeps): RunGates | undefined {
  const stored = readHandoff(row);
  const gates: RunGates = row.kind === 'forward' ? mappingGates(stored, deps) : { budgets: [], recheckMs: deps.recheckMs };
  const target = stored?.target;
  if (target !== undefined) applyTarget(gates, target, deps);
  return isGated(gates) ? gates : undefined;
}

function applyTarget(gates: RunGates, target: string, deps: PlanDeps): void {
  const settings = deps.targets?.(target);
  const breaker: Config['agents']['defaults']['circuitBreaker'] = settings?.circuitBreaker ?? deps.defaults.circuitBreaker;
  if (breaker !== undefined) gates.circuit = { provider: targetCircuitKey(target), rule: { failures: breaker.failures, openMs: breaker.openSeconds * 1000 } };
  if (settings?.concurrency !== undefined) gates.concurrency = { key: targetCircuitKey(target), limit: settings.concurrency };
}

/** The run's target and, for a forward, the fields its mapping gates read. */
function readHandoff(row: RunRow): { target: string; origin: { hook: string; mappingId?: string }; limitKeys?: { throttle?: string; concurrency?: string } } | undefined {
  if (row.kind === 'callback') {
    const callback = parseCallbackAction(row);
    return callback === undefined ? undefined : { target: callback.target, origin: callback.origin };
  }
  try {
    const action = JSON.parse(row.action) as { forward?: unknown; origin?: { hook: string; mappingId?: string }; limitKeys?: { throttle?: string; concurrency?: string } } | null;
    if (typeof action?.forward !== 'string' || action.origin === undefined) return undefined;
    return { target: action.forward, origin: action.origin, ...(action.limitKeys === undefined ? {} : { limitKeys: action.limitKeys }) };
  } catch {
    return undefined;
  }
}
