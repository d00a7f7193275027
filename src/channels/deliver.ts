import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../log.js';
import { retryDelay } from '../retry.js';
import { scrubUrls } from './http.js';
import { splitForRendering, splitMessage } from './split.js';
import { DeliveryError, type Channel, type SendOptions } from './types.js';
import type { DeliveryOutcome } from '../store/port-types.js';
import { contentMark, idMark, type OwnMark } from '../own-messages.js';

// Declared once, on the store port that keeps it (a run's and a heartbeat's `delivery`).
export type { DeliveryOutcome } from '../store/port-types.js';

export interface DeliverOptions {
  /** Sends of one part before giving up (default 4). */
  maxAttempts?: number;
  /** First backoff step; doubled on each retry (default 1000 ms), the wait between half of it and all of it. */
  baseDelayMs?: number;
  /** Cap of any wait, including a service's Retry-After (default 30 s). */
  maxDelayMs?: number;
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The backoff's jitter source, in [0, 1) (default Math.random; tests pin it). */
  random?: () => number;
  /** Where retries are reported (`delivery.retry`, warn); never the text. */
  logger?: Logger;
  /** Sender text (a notify): every part is neutralised whatever the channel's markup setting. */
  untrusted?: boolean;
  /**
   * Keeps the marks of each message posted (src/own-messages.ts): its recipient and text before it
   * is posted (a part is not posted until they are kept), its id after.
   */
  remember?: (marks: readonly OwnMark[]) => Promise<void>;
}

const DEFAULTS = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 };

/**
 * Sends `text` to `to` over `channel`, split to the channel's limit (and to its rendering's) before
 * the first send, and sent piece by piece in order. Rate limits, server errors and network failures are retried with exponential backoff and
 * jitter (retryDelay; a service's Retry-After wins, capped at maxDelayMs); any other refusal ends the delivery.
 * Never throws: the outcome says what happened, with a reason safe to log and show.
 */
export async function deliverText(channel: Channel, to: string, text: string, options: DeliverOptions = {}): Promise<DeliveryOutcome> {
  const failed = (reason: string, attempts: number): DeliveryOutcome => ({ status: 'failed', channel: channel.name, to, reason, attempts });
  const sendOptions: SendOptions | undefined = options.untrusted === true ? { untrusted: true } : undefined;
  let parts: string[];
  try {
    parts = fitParts(channel, text, sendOptions);
  } catch (error) {
    return failed(`${channel.name}: cannot split the reply (${describe(error)})`, 0);
  }
  if (parts.length === 0) return failed(`${channel.name}: nothing to deliver, the reply is empty`, 0);
  let attempts = 0;
  for (const [index, part] of parts.entries()) {
    const result = await sendPart(channel, to, part, options, sendOptions);
    attempts += result.attempts;
    if (result.error !== undefined) {
      const where = parts.length === 1 ? '' : `part ${index + 1} of ${parts.length}: `;
      return failed(`${channel.name}: ${where}${result.error}`, attempts);
    }
  }
  return { status: 'delivered', channel: channel.name, to, parts: parts.length, attempts };
}

/** The pieces send() gets, each posted as one message: fixed before the first send, so a retry repeats one piece. */
function fitParts(channel: Channel, text: string, sendOptions: SendOptions | undefined): string[] {
  const parts = splitMessage(text, channel.maxMessageChars);
  const rendering = channel.rendering;
  if (rendering === undefined) return parts;
  return parts.flatMap((part) => splitForRendering(part, rendering.maxChars, (piece) => rendering.render(piece, sendOptions)));
}

/** Sends one part with retries; `error` is the final reason when it did not go through. */
async function sendPart(channel: Channel, to: string, part: string, options: DeliverOptions, sendOptions: SendOptions | undefined): Promise<{ attempts: number; error?: string }> {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? DEFAULTS.maxAttempts));
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    if (aborted(options.signal)) return { attempts: attempt - 1, error: 'delivery aborted' };
    try {
      await rememberBeforePosting(channel, to, part, options, sendOptions);
      const posted = sendOptions === undefined ? await channel.send(to, part, options.signal) : await channel.send(to, part, options.signal, sendOptions);
      if (posted !== undefined) await rememberPosted(channel, posted.id, options);
      return { attempts: attempt };
    } catch (error) {
      const retryable = error instanceof DeliveryError && error.retryable && !aborted(options.signal);
      if (!retryable) return { attempts: attempt, error: describe(error) };
      if (attempt >= maxAttempts) return { attempts: attempt, error: `${describe(error)}; gave up after ${attempt} attempts` };
      const policy = { baseMs: options.baseDelayMs ?? DEFAULTS.baseDelayMs, maxMs: options.maxDelayMs ?? DEFAULTS.maxDelayMs };
      const wait = retryDelay(attempt, error.retryAfterMs, policy, options.random);
      options.logger?.warn({ event: 'delivery.retry', channel: channel.name, attempt, waitMs: wait, status: error.status }, 'delivery failed, retrying');
      try {
        await sleep(wait, options.signal);
      } catch {
        return { attempts: attempt, error: 'delivery aborted' };
      }
    }
  }
}

/**
 * The recipient and text of the part, kept before the request leaves: the sender's webhook for the
 * message may arrive before the service's answer (and its id) does. Not kept: not posted (retried).
 */
async function rememberBeforePosting(channel: Channel, to: string, part: string, options: DeliverOptions, sendOptions: SendOptions | undefined): Promise<void> {
  const posting = options.remember === undefined ? undefined : channel.posting?.(to, part, sendOptions);
  if (posting === undefined) return;
  try {
    await options.remember?.([contentMark(posting.target, posting.body)]);
  } catch (error) {
    throw new DeliveryError(`could not record the message before posting it, so it was not posted (${describe(error)})`, { retryable: true, cause: error });
  }
}

/** The id the service answered; the message is posted, so a failure to keep it is only logged (its content mark still holds for a while). */
async function rememberPosted(channel: Channel, id: string, options: DeliverOptions): Promise<void> {
  if (options.remember === undefined || id.trim() === '') return;
  try {
    await options.remember([idMark(id)]);
  } catch (error) {
    options.logger?.warn({ event: 'delivery.own_message_unrecorded', channel: channel.name, err: describe(error) }, 'could not record the id of a posted message');
  }
}

/** Error text for an outcome: DeliveryErrors are written to be shown; anything else may quote a URL. */
function describe(error: unknown): string {
  if (error instanceof DeliveryError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return `unexpected error: ${scrubUrls(message).slice(0, 300)}`;
}

/** A function, not an inline check: the signal can flip while a send is awaited. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, signal === undefined ? undefined : { signal });
}
