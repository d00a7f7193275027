import type { GmailNotification } from './processor.js';

export class PubsubEnvelopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PubsubEnvelopeError';
  }
}

/** `{ message: { data, messageId, … }, subscription }`: the body Pub/Sub pushes. */
export function isPushEnvelope(payload: unknown): boolean {
  if (payload === null || typeof payload !== 'object') return false;
  const message = (payload as { message?: unknown }).message;
  return message !== null && typeof message === 'object' && 'data' in message && 'subscription' in payload;
}

/** The Gmail notification inside a push envelope's (or a pulled message's) base64 `data`. */
export function decodeNotification(payload: unknown): GmailNotification {
  const data = (payload as { message?: { data?: unknown } } | null)?.message?.data;
  if (typeof data !== 'string') throw new PubsubEnvelopeError('expected a Pub/Sub push envelope: {"message":{"data":"<base64>"},"subscription":"…"}');
  return decodeData(data);
}

export function decodeData(data: string): GmailNotification {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
  } catch {
    throw new PubsubEnvelopeError('message.data is not base64-encoded JSON');
  }
  if (parsed === null || typeof parsed !== 'object') throw new PubsubEnvelopeError('message.data is not a Gmail notification');
  const { emailAddress, historyId } = parsed as Record<string, unknown>;
  if (typeof historyId !== 'string' && typeof historyId !== 'number') throw new PubsubEnvelopeError('message.data has no historyId');
  if (!/^\d{1,30}$/.test(String(historyId))) throw new PubsubEnvelopeError('message.data has an invalid historyId');
  return { historyId: String(historyId), ...(typeof emailAddress === 'string' ? { emailAddress } : {}) };
}
