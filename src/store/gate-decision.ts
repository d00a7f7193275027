import type { CircuitRow, CircuitRule, CircuitTransition, GateOutcome, RateRule, RunGates } from './limit-types.js';

/**
 * The decisions behind the limit store, pure so both adapters make exactly the same ones: each
 * adapter reads the state inside its transaction, asks here, and writes what comes back.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** A circuit never stays open longer than this, however many probes failed. */
export const MAX_OPEN_MS = HOUR_MS;

/**
 * GCRA (the generic cell rate algorithm): a bucket is one stored time, the theoretical arrival
 * time of the next hit. Hits are spaced periodMs / limit apart on average, and up to
 * limit + burst may come back to back after a quiet spell. Over any window of periodMs at most
 * limit + burst hits conform, and a refusal knows exactly when the next hit would.
 */
export function gcra(tat: number | undefined, rule: RateRule, now: number): { allowed: true; tat: number } | { allowed: false; retryAfterMs: number } {
  const { interval, tolerance } = gcraSpacing(rule);
  const start = Math.max(tat ?? now, now);
  const ahead = start - now;
  if (ahead > tolerance) return { allowed: false, retryAfterMs: Math.ceil(ahead - tolerance) };
  return { allowed: true, tat: start + interval };
}

/** A rule's spacing between hits and how far ahead a bucket may be booked (both in ms, fractional). */
export function gcraSpacing(rule: RateRule): { interval: number; tolerance: number } {
  const interval = rule.periodMs / rule.limit;
  return { interval, tolerance: (rule.limit - 1 + (rule.burst ?? 0)) * interval };
}

/** One budget window as read from the starts recorded for its scope. */
export interface BudgetWindowState {
  scope: string;
  window: 'hour' | 'day';
  windowMs: number;
  limit: number;
  /** Starts within the window. */
  used: number;
  /** The limit-th newest start within the window (defined when used ≥ limit): the window frees when it leaves. */
  limitthNewest: number | undefined;
}

/** What a gated claim reads before deciding. */
export interface GateState {
  running: number;
  tat: number | undefined;
  budgets: readonly BudgetWindowState[];
  circuit: CircuitRow | undefined;
  /**
   * A probing circuit's probe still executes under a live claim (its run is `running` and, on a
   * shared store, its lease is not past): the circuit stays held however long its call takes.
   */
  probeHeld: boolean;
  /** `hookgate runs start --force`: budgets and throttle do not hold the run. */
  forced: boolean;
}

export type GateDecision =
  | { kind: 'start'; tat: number | undefined; probe: boolean }
  | Extract<GateOutcome, { kind: 'waiting' }>;

/** The first gate that holds the run (circuit, concurrency, throttle, budget), or what starting it writes. */
export function decideGates(gates: RunGates, state: GateState, now: number): GateDecision {
  const circuit = circuitGate(state.circuit, state.probeHeld, now, gates.recheckMs);
  if (circuit.kind === 'wait') return { kind: 'waiting', waitingFor: 'provider-circuit', notBefore: circuit.notBefore };
  if (gates.concurrency !== undefined && state.running >= gates.concurrency.limit) {
    return { kind: 'waiting', waitingFor: 'concurrency', notBefore: now + gates.recheckMs };
  }
  let tat: number | undefined;
  if (gates.throttle !== undefined && !state.forced) {
    const verdict = gcra(state.tat, gates.throttle.rule, now);
    if (!verdict.allowed) return { kind: 'waiting', waitingFor: 'throttle', notBefore: now + verdict.retryAfterMs };
    tat = verdict.tat;
  }
  if (!state.forced) {
    const full = state.budgets.filter((window) => window.used >= window.limit);
    if (full.length > 0) {
      const frees = Math.max(...full.map((window) => (window.limitthNewest ?? now) + window.windowMs));
      return { kind: 'waiting', waitingFor: 'budget', notBefore: Math.max(frees, now + 1), scope: (full[0] as BudgetWindowState).scope };
    }
  }
  return { kind: 'start', tat, probe: circuit.kind === 'probe' };
}

function circuitGate(row: CircuitRow | undefined, probeHeld: boolean, now: number, recheckMs: number): { kind: 'pass' | 'probe' } | { kind: 'wait'; notBefore: number } {
  if (row === undefined || row.state === 'closed') return { kind: 'pass' };
  if (row.state === 'open') return now < row.until ? { kind: 'wait', notBefore: row.until } : { kind: 'probe' };
  // probing: another run is the probe while it executes; one that ended without an outcome (or whose instance died) is replaced.
  return probeHeld ? { kind: 'wait', notBefore: now + recheckMs } : { kind: 'probe' };
}

/** The circuit while a probe run holds it: the others wait as long as that run executes (however many leases its call takes). */
export function probingCircuit(row: CircuitRow | undefined, provider: string, rule: CircuitRule, now: number, probeRun: string): CircuitRow {
  return { provider, state: 'probing', failures: row?.failures ?? 0, until: now, openMs: row?.openMs ?? rule.openMs, changedAt: now, probeRun };
}

/** A provider call's outcome applied to its circuit: the new row (undefined: unchanged) and what changed. */
export function nextCircuit(
  row: CircuitRow | undefined,
  provider: string,
  failed: boolean,
  rule: CircuitRule,
  now: number,
): { row: CircuitRow | undefined; transition: CircuitTransition | undefined } {
  const current: CircuitRow = row ?? { provider, state: 'closed', failures: 0, until: 0, openMs: rule.openMs, changedAt: now };
  if (!failed) {
    if (current.state === 'closed' && current.failures === 0) return { row: undefined, transition: undefined };
    const closed: CircuitRow = { provider, state: 'closed', failures: 0, until: 0, openMs: rule.openMs, changedAt: now };
    return { row: closed, transition: current.state === 'closed' ? undefined : { kind: 'closed' } };
  }
  const failures = current.failures + 1;
  if (current.state === 'probing') {
    const openMs = Math.min(current.openMs * 2, MAX_OPEN_MS);
    return { row: { provider, state: 'open', failures, until: now + openMs, openMs, changedAt: now }, transition: { kind: 'reopened', until: now + openMs, failures } };
  }
  // Open already: a run that was in flight when it opened changes nothing but the count.
  if (current.state === 'open' || failures < rule.failures) return { row: { ...current, failures }, transition: undefined };
  const openMs = Math.min(rule.openMs, MAX_OPEN_MS);
  return { row: { provider, state: 'open', failures, until: now + openMs, openMs, changedAt: now }, transition: { kind: 'opened', until: now + openMs, failures } };
}

/** Windows each budget rule asks for, as (scope, window, limit) triples. */
export function budgetWindows(budgets: RunGates['budgets']): Array<{ scope: string; window: 'hour' | 'day'; windowMs: number; limit: number }> {
  const out: Array<{ scope: string; window: 'hour' | 'day'; windowMs: number; limit: number }> = [];
  for (const rule of budgets) {
    if (rule.runsPerHour !== undefined) out.push({ scope: rule.scope, window: 'hour', windowMs: HOUR_MS, limit: rule.runsPerHour });
    if (rule.runsPerDay !== undefined) out.push({ scope: rule.scope, window: 'day', windowMs: DAY_MS, limit: rule.runsPerDay });
  }
  return out;
}
