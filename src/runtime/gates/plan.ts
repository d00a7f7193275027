import type { RunGates, RunRow } from '../../store/port.js';
import { parseStoredAction } from '../stored-action.js';
import { splitModelRef } from '../provider-call.js';
import { planHandoffGates } from './handoff-plan.js';
import { isGated, mappingGates, type PlanDeps } from './mapping-gates.js';

export type { PlanDeps } from './mapping-gates.js';

/** How long a wait with no known end (a key's slot held by another run, a probe in flight) goes before the run is looked at again. */
export const DEFAULT_RECHECK_MS = 30_000;

/**
 * The gates a queued run passes before it starts: its mapping's concurrency key, throttle and
 * budget, the service's budget and its provider's circuit (a forwarded run: its target's, see
 * handoff-plan.ts). Undefined when none applies, so the run is claimed as it always was (so is a
 * notify, which calls no model). Keys were rendered at admission (action.limitKeys); a mapping
 * given a limit since then holds its earlier runs in one shared bucket.
 */
export function planGates(row: RunRow, deps: PlanDeps): RunGates | undefined {
  // A notify sends text to a channel and calls no model: no budget, throttle or circuit is about it.
  if (row.kind === 'notify') return undefined;
  if (row.kind === 'forward' || row.kind === 'callback') return planHandoffGates(row, deps);
  const action = parseStoredAction(row, 'agent');
  const gates = mappingGates(action, deps);
  const breaker = deps.defaults.circuitBreaker;
  const provider = splitModelRef(action?.model ?? deps.defaultModel)?.providerId;
  if (breaker !== undefined && provider !== undefined) gates.circuit = { provider, rule: { failures: breaker.failures, openMs: breaker.openSeconds * 1000 } };
  return isGated(gates) ? gates : undefined;
}
