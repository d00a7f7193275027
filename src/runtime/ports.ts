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
  complete(request: { model: string; messages: PortMessage[]; thinking?: string; signal: AbortSignal }): Promise<{ text: string }>;
}

export interface ChannelPort {
  readonly name: string;
  readonly maxMessageChars: number;
  send(to: string, text: string, signal?: AbortSignal): Promise<void>;
}

export type DeliveryOutcome =
  | { status: 'delivered'; channel: string; to: string; parts: number; attempts: number }
  | { status: 'failed'; channel: string; to?: string; reason: string; attempts: number };

export type SkippedDelivery = { status: 'skipped'; reason: string };

export type RecordedDelivery = DeliveryOutcome | SkippedDelivery;

/** Splits, retries and reports; never throws (src/channels/deliver.ts deliverText fits). */
export type DeliverFn = (channel: ChannelPort, to: string, text: string, options: { signal: AbortSignal }) => Promise<DeliveryOutcome>;

/** Counters the runtime reports to (the service's metrics); optional so the runtime runs without them. */
export interface RuntimeObserver {
  runFinished(status: string): void;
  deliveryFailed(channel: string): void;
}
