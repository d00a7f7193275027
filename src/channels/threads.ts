import { DeliveryError } from './types.js';

/** A recipient and, after its first `#`, the thread to answer in (`C123#1712345678.000100`). */
export interface ThreadedRecipient {
  recipient: string;
  thread: string | undefined;
}

/** Splits `<recipient>#<thread>`; a `to` without `#` (or with nothing after it) names no thread. */
export function splitThread(to: string): ThreadedRecipient {
  const hash = to.indexOf('#');
  if (hash < 0) return { recipient: to, thread: undefined };
  const thread = to.slice(hash + 1).trim();
  return { recipient: to.slice(0, hash).trim(), thread: thread === '' ? undefined : thread };
}

/** A thread that must be a positive integer (Telegram's topic and message ids). */
export function integerThread(thread: string, what: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(thread)) throw new DeliveryError(`the thread after "#" must be ${what}`, { retryable: false });
  return Number(thread);
}
