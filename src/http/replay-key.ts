import { createHash } from 'node:crypto';
import type { CompiledSignature } from '../auth/signatures/index.js';

/**
 * The idempotency key and fingerprint of a delivery, as the hook handlers store them: one place,
 * so `hookgate try` can tell whether a body would be answered as a replay.
 */

/**
 * Per mapping. A delivery id the signature covers is the key, so a sender's retry (same id, signed
 * anew) replays. Otherwise the id proves nothing (anyone could send a captured request again under a
 * fresh one), so the key is the digest of what was signed: the signed time, if any, and the body —
 * or, where the scheme signs something else (Twilio's URL and decoded fields), that, so no other
 * spelling of the same signed content is a new delivery.
 */
export function replayKeyOf(mappingId: string, signature: CompiledSignature, id: string | undefined, timestamp: number | undefined, signed: Buffer | string): string {
  if (signature.scheme.replayKey === 'delivery-id' && id !== undefined) return deliveryKeyOf(mappingId, id);
  const digest = createHash('sha256').update(`${timestamp ?? ''}\n`).update(signed).digest('base64url');
  return `signed-content:${mappingId}:${digest}`;
}

/** Per mapping; the id is hashed so any length or character a provider uses fits the key column. */
function deliveryKeyOf(mappingId: string, id: string): string {
  return `signature:${mappingId}:${createHash('sha256').update(id).digest('base64url')}`;
}

/**
 * Over the body's bytes, not the parsed payload: parsing folds different bodies together
 * (`{"x":1e400}` and `{"x":null}`, duplicate keys), and a retry is the same request only byte for byte.
 * A signed request whose scheme signs decoded content instead (Twilio) gives that content.
 */
export function fingerprintOf(hook: string, rawBody: Buffer | string): string {
  // A string is hashed as its UTF-8 bytes: the same digest as the Buffer of the same body.
  return createHash('sha256').update(hook).update('\n').update(rawBody).digest('base64url');
}
