import { createHmac, timingSafeEqual } from 'node:crypto';

/** A mapping's `signature` settings once checked: what a scheme verifies and signs with. */
export interface SignatureSettings {
  /** Every secret that may sign (rotation: any one verifies). Never logged. */
  readonly secrets: readonly string[];
  /** How far a signed timestamp may be from now, in seconds (timestamped schemes only). */
  readonly toleranceSeconds: number;
  /** Scheme `hmac` only. */
  readonly header?: string;
  readonly algorithm?: 'sha1' | 'sha256' | 'sha512';
  readonly encoding?: 'hex' | 'base64';
  readonly prefix?: string;
}

/** The request as a verifier sees it: the body's bytes exactly as received, headers lower-cased. */
export interface SignedRequest {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Unix seconds now (injected so tests control the window). */
  readonly nowSeconds: number;
}

/** Why a signature was refused; also the `reason` label of hookgate_signature_failures_total. */
export type SignatureFailure = 'missing' | 'malformed' | 'mismatch' | 'expired';

export type Verification = { ok: true; timestamp: number | undefined } | { ok: false; reason: SignatureFailure };

/** One provider's signing protocol. One file per scheme, one line in ./index.ts. */
export interface SignatureScheme {
  readonly name: string;
  /** One line for docs and `hookgate try`: what the sender puts where. */
  readonly summary: string;
  /** Signs with a timestamp, so `toleranceSeconds` applies. */
  readonly timestamped: boolean;
  /** Bodies may come form-encoded (Slack slash commands and interactivity). */
  readonly acceptsForm: boolean;
  /** Settings keys besides secret(s)/toleranceSeconds/allowToken this scheme reads. */
  readonly options: readonly ('header' | 'algorithm' | 'encoding' | 'prefix' | 'bodyFormat')[];
  /** Problems with the settings (e.g. a secret that is not base64), found at start-up. */
  checkSettings(settings: SignatureSettings): string[];
  /** Lower-cased names of the headers that carry signatures: kept out of templates, transforms, logs and `try` output. */
  signatureHeaders(settings: SignatureSettings): readonly string[];
  verify(settings: SignatureSettings, request: SignedRequest): Promise<Verification>;
  /** The provider's delivery id (replay protection), from the verified headers or payload. */
  deliveryId(headers: Readonly<Record<string, string | undefined>>, payload: Record<string, unknown>): string | undefined;
  /**
   * A verified request the provider sends to test the endpoint, answered 200 with this body and no
   * action (Slack's url_verification, GitHub's ping); undefined for an ordinary delivery.
   */
  handshake?(headers: Readonly<Record<string, string | undefined>>, payload: Record<string, unknown>): Record<string, unknown> | undefined;
  /** The headers a sender would send for `body` at `nowSeconds` (first secret): `hookgate sign` and tests. */
  sign(settings: SignatureSettings, body: Buffer, nowSeconds: number, deliveryId: string): Promise<Record<string, string>>;
}

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

/** True when any secret's expected signature equals any presented one (every pair is compared). */
export function anyMatches(presented: readonly string[], expected: readonly string[]): boolean {
  let found = false;
  for (const want of expected) for (const got of presented) found = sameSignature(got, want) || found;
  return found;
}

const UNIX_SECONDS = /^\d{1,12}$/;

/** A decimal Unix time in seconds, or undefined when the text is anything else. */
export function parseUnixSeconds(text: string | undefined): number | undefined {
  if (text === undefined || !UNIX_SECONDS.test(text)) return undefined;
  return Number(text);
}

/** Checked after the signature, so `expired` tells an operator a genuine sender's clock (or a replay) is off. */
export function withinWindow(timestamp: number, settings: SignatureSettings, nowSeconds: number): Verification {
  return Math.abs(nowSeconds - timestamp) <= settings.toleranceSeconds ? { ok: true, timestamp } : { ok: false, reason: 'expired' };
}

export function stringField(payload: Record<string, unknown>, key: string): string | undefined {
  const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
