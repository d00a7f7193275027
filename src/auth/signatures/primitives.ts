import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { HeaderMap, SignatureSettings, Verification } from './types.js';

/** HMAC of the parts, in order, as raw bytes. */
export function hmac(algorithm: string, secret: string | Uint8Array, ...parts: Array<string | Uint8Array>): Buffer {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Constant-time equality of two encoded signatures, compared as the text the sender sent: comparing
 * decoded bytes would let several spellings (upper-case hex, base64 with different padding bits)
 * count as one signature. The length of a signature is public (fixed by the algorithm).
 */
export function sameSignature(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A secret sent as is (GitLab's token): compared as SHA-256 digests, so neither its length nor a
 * common prefix shows in the time taken.
 */
export function sameSecret(presented: string, secret: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(secret));
}

const UNIX_SECONDS = /^\d{1,12}$/;

/** A decimal Unix time in seconds, or undefined when the text is anything else. */
export function parseUnixSeconds(text: string | undefined): number | undefined {
  if (text === undefined || !UNIX_SECONDS.test(text)) return undefined;
  return Number(text);
}

/** Checked after the signature, so `expired` tells an operator a genuine sender's clock (or a replay) is off. */
export function withinWindow(timestamp: number, settings: SignatureSettings<unknown>, nowSeconds: number): Verification {
  return Math.abs(nowSeconds - timestamp) <= settings.toleranceSeconds ? { ok: true, timestamp } : { ok: false, reason: 'expired' };
}

/** A header's value, undefined when absent or empty. */
export function headerOf(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return value === undefined || value === '' ? undefined : value;
}

export function stringField(payload: Record<string, unknown>, key: string): string | undefined {
  const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An own nested object field, or undefined. */
export function objectField(payload: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `type.action` when the payload carries a string action, else `type` (GitHub's convention, reused where it fits). */
export function withAction(type: string | undefined, action: unknown): string | undefined {
  if (type === undefined) return undefined;
  return typeof action === 'string' && action !== '' ? `${type}.${action}` : type;
}

export type StampedSignature = { ok: true; presented: string; stamp: string; timestamp: number } | { ok: false; reason: 'missing' | 'malformed' };

/**
 * A signature sent beside its timestamp in a second header (Slack, Zendesk, Discord): both headers
 * read, the time parsed by the sender's rule and the signature checked against its shape.
 */
export function readStampedSignature(headers: HeaderMap, signatureHeader: string, timestampHeader: string, shape: RegExp, parseTime: (text: string) => number | undefined): StampedSignature {
  const presented = headerOf(headers, signatureHeader);
  const stamp = headerOf(headers, timestampHeader);
  if (presented === undefined || stamp === undefined) return { ok: false, reason: 'missing' };
  const timestamp = parseTime(stamp);
  if (timestamp === undefined || !shape.test(presented)) return { ok: false, reason: 'malformed' };
  return { ok: true, presented, stamp, timestamp };
}
