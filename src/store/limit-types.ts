import type { RunClaim } from './port-types.js';

/**
 * The store port's flow-control part (`Store.limits`): rate-limit buckets, run gates (throttle,
 * concurrency key, budgets, provider circuit) and what `hookgate status` shows of them. Every
 * limit's state lives here, in the database, so all instances sharing it agree (docs/run-limits.md).
 */
export interface LimitStore {
  /**
   * One GCRA step on `bucket` (docs/flow-control.md): allowed → the hit is counted; refused →
   * nothing is written and `retryAfterMs` says when the next hit would conform. `peek` counts nothing.
   */
  rateHit(bucket: string, rule: RateRule, now: number, peek?: boolean): Promise<RateVerdict>;
  /**
   * queued → running (as RunStore.claim) only if every gate lets the run start now, in one
   * transaction with the gates' bookkeeping (throttle bucket, budget starts, circuit probe).
   * Otherwise the run stays queued with `waiting_for` / `not_before` set and nothing else written.
   */
  claimGated(runId: string, claim: RunClaim, gates: RunGates): Promise<GateOutcome>;
  /**
   * Queued runs waiting for this concurrency key, for a provider circuit, or (`any`) for any gate
   * are due at once (`not_before` cleared): listed again in their order and decided anew. `any`
   * follows a change of the limits themselves (a reload, a start).
   */
  wakeWaiting(reason: 'concurrency' | 'provider-circuit' | 'any', concurrencyKey?: string): Promise<void>;
  /** The earliest `not_before` of a waiting queued run; undefined when none waits for a time. */
  nextNotBefore(): Promise<number | undefined>;
  /** A provider call ended: counts consecutive failures, opens, probes and closes the circuit. */
  recordProviderOutcome(provider: string, failed: boolean, rule: CircuitRule, now: number): Promise<CircuitTransition | undefined>;
  /** A queued run may start past its budget and throttle (`hookgate runs start --force`). */
  forceStart(runId: string, at: number): Promise<ForceOutcome>;
  /** Waiting runs by reason, budget use per scope and window, every circuit, the most refused rate-limit keys. */
  overview(budgets: readonly BudgetRule[], now: number): Promise<LimitOverview>;
}

export interface RateRule {
  limit: number;
  periodMs: number;
  /** Extra hits allowed back to back beyond `limit` (throttle's burst); 0 for rate limits. */
  burst?: number;
}

/**
 * A mapping's rate-limit step taken inside an acceptance's own transaction (GCRA on `bucket`):
 * the acceptance commits only when the hit conforms, and a refused one writes nothing at all.
 */
export interface RateHitRequest {
  bucket: string;
  rule: RateRule;
  now: number;
}

export interface RateVerdict {
  allowed: boolean;
  /** When refused: ms until a hit would conform. */
  retryAfterMs: number;
}

/** `retry`: a forward or callback run waiting to be sent to its target again (docs/forward.md). */
export type WaitingFor = 'throttle' | 'concurrency' | 'budget' | 'provider-circuit' | 'slot' | 'retry' | 'consumer';

export interface BudgetRule {
  /** `service`, `mapping:<id>`, or a preset's `preset:<name>` (all its mappings together). */
  scope: string;
  runsPerHour?: number | undefined;
  runsPerDay?: number | undefined;
}

export interface CircuitRule {
  /** Consecutive provider failures that open the circuit. */
  failures: number;
  /** How long it first stays open; doubled after a failed probe, up to an hour. */
  openMs: number;
}

/** Every gate one run passes through before it starts; absent gates do not apply. */
export interface RunGates {
  concurrency?: { key: string; limit: number };
  throttle?: { bucket: string; rule: RateRule };
  budgets: readonly BudgetRule[];
  circuit?: { provider: string; rule: CircuitRule };
  /** How long a wait without a known end (a key's slot, another run's probe) lasts before it is looked at again. */
  recheckMs: number;
}

export type GateOutcome =
  | { kind: 'claimed'; probe: boolean }
  /** Not queued any more (another claimer got it, or it ended). */
  | { kind: 'taken' }
  | { kind: 'waiting'; waitingFor: Exclude<WaitingFor, 'slot' | 'retry' | 'consumer'>; notBefore: number; scope?: string };

export type CircuitState = 'closed' | 'open' | 'probing';

export interface CircuitRow {
  provider: string;
  state: CircuitState;
  failures: number;
  /** Until when it stays open (open); when the probe started (probing: it holds the circuit while its run executes). */
  until: number;
  /** The open time that applies next (doubles after a failed probe). */
  openMs: number;
  changedAt: number;
  /** Probing: the run that is the probe. */
  probeRun?: string;
}

export type CircuitTransition = { kind: 'opened' | 'reopened'; until: number; failures: number } | { kind: 'closed' };

export type ForceOutcome = { kind: 'forced' } | { kind: 'not-found' } | { kind: 'not-queued'; status: string };

export interface LimitOverview {
  waiting: Record<WaitingFor, number>;
  budgets: Array<{ scope: string; window: 'hour' | 'day'; limit: number; used: number; remaining: number }>;
  circuits: CircuitRow[];
  /** Rate-limit buckets by how far ahead they are booked, most first (keys as rendered). */
  busiestRateKeys: Array<{ bucket: string; aheadMs: number }>;
}
