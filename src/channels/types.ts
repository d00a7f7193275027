import type { KeyedDigester } from '../log-digest.js';
import type { Logger } from '../log.js';
import type { SendOptions } from './markup.js';

export type { SendOptions } from './markup.js';

/** What a channel may use; everything that touches the outside world is injected so tests can replace it. */
export interface ChannelDeps {
  fetch: typeof globalThis.fetch;
  logger: Logger;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Milliseconds since the epoch; channels that cache credentials (msteams) read expiry from it. */
  now?: () => number;
  /** Recipients in log lines, keyed by the installation's key (src/store/log-key.ts). */
  digest?: KeyedDigester;
}

/**
 * How a channel rewrites a part before posting it (neutralised Markdown: a code span per URL, a
 * break per mention), which may outgrow the service's limit. deliverText splits such a part into
 * pieces before the first send, so a retried send repeats one message, never one already posted.
 */
export interface Rendering {
  /** The longest rendered text the service accepts in one message. */
  readonly maxChars: number;
  render(text: string, options?: SendOptions): string;
}

/** A message the service accepted, named as its webhooks name it later (src/own-messages.ts). */
export interface PostedMessage {
  /** GitHub: the comment's node id; GitLab: the note id; Linear: the comment id; Slack: `<channel>:<ts>`. */
  id: string;
}

/** Where a send() would post and the exact text it would post, known before posting (src/own-messages.ts). */
export interface Posting {
  /** The recipient as the sender's webhooks name it (`owner/repo#12`, `group/project!3`, an issue id, a channel id). */
  target: string;
  body: string;
}

/** One configured chat service. `send` posts exactly one message; splitting and retries belong to deliverText. */
export interface Channel {
  readonly name: string;
  readonly maxMessageChars: number;
  /** Set when send() posts a rendering of the text rather than the text. */
  readonly rendering?: Rendering;
  /**
   * Posts one piece (at most maxMessageChars characters, its rendering at most rendering.maxChars) as one message.
   * Resolves with the message's id where the service answers one that its webhooks carry. Throws DeliveryError.
   */
  send(to: string, text: string, signal?: AbortSignal, options?: SendOptions): Promise<PostedMessage | void>;
  /**
   * What send() with the same arguments would post, for channels whose messages come back as
   * webhooks (github, gitlab, linear, slack); undefined for a recipient whose messages do not.
   */
  posting?(to: string, text: string, options?: SendOptions): Posting | undefined;
}

export interface DeliveryErrorOptions {
  /** True when the same request may succeed later (rate limit, 5xx, network); false for a final refusal. */
  retryable: boolean;
  /** The service's own wait hint (Retry-After, retry_after), in milliseconds. */
  retryAfterMs?: number | undefined;
  /** HTTP status of the service's answer, when there was one. */
  status?: number | undefined;
  cause?: unknown;
}

/**
 * A failed send. The message is shown to operators (delivery outcome, logs), so it carries the
 * service's own error text and never a URL or a credential.
 */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;

  constructor(message: string, options: DeliveryErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DeliveryError';
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }
}
