import type { AgentAction, WakeAction } from '../actions/types.js';
import type { TargetAnswer } from '../store/handoff-types.js';

export type { TargetAnswer } from '../store/handoff-types.js';

/** A stored (sealed) wake or agent action that names a target. */
export type ForwardedAction = (WakeAction | AgentAction) & { forward: string };

/** One action handed to a target. */
export interface Handoff {
  /** Hookgate's run id: the idempotency key, `webhook-id` or delivery id, the same on every attempt. */
  id: string;
  action: ForwardedAction;
  signal: AbortSignal;
}

/** One document (a `hookgate.run.finished.v1` callback) posted to a target. */
export interface DocumentDelivery {
  /** The callback run's id: the same on every attempt. */
  id: string;
  document: Record<string, unknown>;
  signal: AbortSignal;
}

/** How a target's runs are retried (`targets.<name>.retry`), in milliseconds. */
export interface TargetRetryRule {
  maxAttempts: number;
  maxAgeMs: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/** What every target has, whatever its kind: the runtime's view of it. */
export interface TargetSettings {
  retry: TargetRetryRule;
  /** How long one POST may take (an OpenClaw target waiting for completion: its run's time limit on top). */
  timeoutMs: number;
  circuitBreaker?: { failures: number; openSeconds: number };
  /** At most this many of its runs in flight at once. */
  concurrency?: number;
}

/** A relay target's own settings (docs/relay.md), in milliseconds. */
export interface RelaySettings {
  /** The tokens that may pull this target's events (and no other's). */
  tokens: readonly string[];
  /** Events not acknowledged this long after they were accepted are dropped. */
  retentionMs: number;
  /** How long a pulled event stays with its consumer before it is handed out again. */
  leaseMs: number;
}

/**
 * A configured target. A kind without `handOff` takes no actions; without `deliver`, no callbacks;
 * with `relay`, its actions wait in the store for a consumer to pull them (nothing POSTs them).
 */
export interface TargetClient {
  readonly name: string;
  readonly kind: string;
  readonly settings: TargetSettings;
  readonly relay?: RelaySettings;
  handOff?(handoff: Handoff): Promise<TargetAnswer>;
  deliver?(delivery: DocumentDelivery): Promise<TargetAnswer>;
}
