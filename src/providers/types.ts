/** One turn of a conversation as the runtime hands it to a provider. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  /** The model part of a `provider/model` reference (everything after the first `/`). */
  model: string;
  messages: ChatMessage[];
  /** Thinking level (`low`, `medium`, …); each provider documents what it does with it. */
  thinking?: string;
  /** Aborted by the runtime at the run's time limit; `complete` then rejects promptly with reason `aborted`. */
  signal: AbortSignal;
  /**
   * Records a short remark on the run (shown with it: `GET {hooks.path}/runs/<id>`, the console,
   * `hookgate status`), e.g. a requested setting that was not sent. Never a key or prompt text.
   */
  note?: (text: string) => void;
}

export interface CompletionResult {
  text: string;
}

/** A configured model endpoint. `complete` rejects with ProviderError only. */
export interface Provider {
  readonly id: string;
  readonly api: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

export type ProviderErrorReason = 'timeout' | 'aborted' | 'http' | 'auth' | 'rate-limited' | 'malformed' | 'network' | 'process';

export interface ProviderErrorOptions {
  /** HTTP status (http providers) or exit code (command provider). */
  status?: number;
  /** From a 429's Retry-After, when it was given in seconds or as a date. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** Why a completion failed. The message names the provider and never contains a key or the prompt. */
export class ProviderError extends Error {
  readonly reason: ProviderErrorReason;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(reason: ProviderErrorReason, message: string, options: ProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderError';
    this.reason = reason;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The rejection every provider uses for a cancelled request, so the runtime can tell it apart. */
export function abortedError(providerId: string): ProviderError {
  return new ProviderError('aborted', `provider "${providerId}": request aborted`);
}
