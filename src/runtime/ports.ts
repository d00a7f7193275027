import type { AgentAction, WakeAction } from '../actions/types.js';
import type { DeliveryOutcome, Store, TargetAnswer } from '../store/port.js';

/**
 * The slices of providers and channels the runtime uses, stated structurally so the runtime
 * compiles and is tested on its own; the real registries (src/providers, src/channels) fit them.
 */
export interface PortMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ProviderPort {
  readonly id: string;
  complete(request: { model: string; messages: PortMessage[]; thinking?: string; signal: AbortSignal; note?: (text: string) => void }): Promise<{ text: string }>;
}

export interface ChannelPort {
  readonly name: string;
  readonly maxMessageChars: number;
  /** `options.untrusted`: sender text (a notify), neutralised whatever the channel's markup setting. Resolves with the posted message's id where the service gives one. */
  send(to: string, text: string, signal?: AbortSignal, options?: { untrusted?: boolean }): Promise<{ id: string } | void>;
}

// Declared on the store port, which keeps them; the runtime and its channels produce them.
export type { DeliveryOutcome, RecordedDelivery, SkippedDelivery } from '../store/port.js';

/** The parts of the store port the runtime uses. */
export type RuntimeStore = Pick<Store, 'runs' | 'session' | 'transcripts' | 'deliveries' | 'ownMessages'>;

/** Splits, retries and reports; never throws (src/channels/deliver.ts deliverText fits). */
export type DeliverFn = (channel: ChannelPort, to: string, text: string, options: { signal: AbortSignal; untrusted?: boolean }) => Promise<DeliveryOutcome>;

/** Counters the runtime reports to (the service's metrics); optional so the runtime runs without them. */
export interface RuntimeObserver {
  runFinished(status: string): void;
  deliveryFailed(channel: string): void;
  /** A model call was made: an agent run's turn or a heartbeat's (`hookgate_model_calls_total`). */
  modelCalled?(origin: 'run' | 'heartbeat', provider: string): void;
  /** One handoff to a target ended: accepted, retry, refused or gave-up. */
  handedOff?(target: string, outcome: string): void;
}

/** A stored wake or agent action that names its target (docs/forward.md). */
export type ForwardedAction = (WakeAction | AgentAction) & { forward: string };

/**
 * A target as the runtime uses it (src/forward/ builds them): its retry and circuit settings, and
 * the POSTs it makes. A kind without `handOff` takes no actions; without `deliver`, no callbacks.
 * Either resolves with the classified answer; it rejects only when `signal` aborted (shutdown).
 */
export interface TargetPort {
  readonly name: string;
  readonly kind: string;
  readonly settings: {
    readonly retry: { readonly maxAttempts: number; readonly maxAgeMs: number; readonly minDelayMs: number; readonly maxDelayMs: number };
    readonly circuitBreaker?: { readonly failures: number; readonly openSeconds: number };
    readonly concurrency?: number;
  };
  handOff?(handoff: { id: string; action: ForwardedAction; signal: AbortSignal }): Promise<TargetAnswer>;
  deliver?(delivery: { id: string; document: Record<string, unknown>; signal: AbortSignal }): Promise<TargetAnswer>;
}
