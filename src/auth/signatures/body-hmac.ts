import { headerOf, hmac, parseUnixSeconds, sameSignature, withinWindow } from './primitives.js';
import type { HeaderMap, SignatureScheme, SignatureSettings, SignedRequest, Verification } from './types.js';

type Algorithm = 'sha1' | 'sha256' | 'sha512';
type Encoding = 'hex' | 'base64';

/** How a sender writes an HMAC of the body alone into one header. */
export interface BodyHmacFormat {
  header: string;
  algorithm: Algorithm;
  encoding: Encoding;
  prefix: string;
}

/**
 * What most schemes say the same way: keyed by `secret`/`secrets`, JSON bodies only, no options of
 * their own. Spread first, so the scheme's own fields (and any exception) follow it.
 */
export const SHARED_SECRET_JSON = {
  usesSecret: true,
  acceptsForm: () => false,
  options: {},
  checkSettings: () => [],
} as const;

/** Every secret's HMAC of the parts, in order, encoded as the sender writes it. */
export function expectedDigests(settings: SignatureSettings<unknown>, algorithm: Algorithm, encoding: Encoding, ...parts: Array<string | Uint8Array>): string[] {
  return settings.secrets.map((secret) => hmac(algorithm, secret, ...parts).toString(encoding));
}

/** True when any presented signature equals any secret's expected one (every pair is compared, in constant time). */
export function anyMatches(presented: readonly string[], expected: readonly string[]): boolean {
  let found = false;
  for (const want of expected) for (const got of presented) found = sameSignature(got, want) || found;
  return found;
}

/** The HMAC of the parts with the first secret: what a sender would write. */
export function firstSecretDigest(settings: SignatureSettings<unknown>, algorithm: Algorithm, encoding: Encoding, ...parts: Array<string | Uint8Array>): string {
  return hmac(algorithm, settings.secrets[0] ?? '', ...parts).toString(encoding);
}

const SHAPES: Record<Encoding, RegExp> = {
  hex: /^[0-9a-f]+$/,
  base64: /^[A-Za-z0-9+/]+={0,2}$/,
};

/** Verifies `<prefix><digest>` in `format.header` against every secret's HMAC of the body. */
export function verifyBodyHmac(settings: SignatureSettings<unknown>, body: Buffer, headers: HeaderMap, format: BodyHmacFormat): Verification {
  const presented = headerOf(headers, format.header);
  if (presented === undefined) return { ok: false, reason: 'missing' };
  const digest = presented.slice(format.prefix.length);
  if (!presented.startsWith(format.prefix) || !SHAPES[format.encoding].test(digest)) return { ok: false, reason: 'malformed' };
  const expected = expectedDigests(settings, format.algorithm, format.encoding, body);
  return anyMatches([digest], expected) ? { ok: true, timestamp: undefined } : { ok: false, reason: 'mismatch' };
}

/** The header a body-HMAC sender would send, signed with the first secret. */
export function signBodyHmac(settings: SignatureSettings<unknown>, body: Buffer, format: BodyHmacFormat): string {
  return `${format.prefix}${firstSecretDigest(settings, format.algorithm, format.encoding, body)}`;
}

/** A body-HMAC sender's scheme: what it signs is fixed by `header` (as the sender spells it) and the format. */
export interface BodyHmacSpec<O> extends Omit<BodyHmacFormat, 'header'>, Pick<SignatureScheme<O>, 'name' | 'summary' | 'deliveryId'>, Required<Pick<SignatureScheme<O>, 'eventType'>> {
  header: string;
  /** Further headers that carry a signature of the same body (a sender's older one): hidden like the first. */
  alsoSignatureHeaders?: readonly string[];
  deliveryIdHeader?: string;
  options?: SignatureScheme<O>['options'];
  subscription?: SignatureScheme<O>['subscription'];
  /** The headers a sender sends beside the signature (`hookgate sign`), in the order it sends them. */
  senderHeaders?(deliveryId: string, nowSeconds: number): Record<string, string>;
}

/**
 * A sender that signs the body alone with a shared secret, in one header: no timestamp, so the
 * replay key is the body's digest.
 */
export function bodyHmacScheme<O = Readonly<Record<string, unknown>>>(spec: BodyHmacSpec<O>): SignatureScheme<O> {
  const format: BodyHmacFormat = { header: spec.header.toLowerCase(), algorithm: spec.algorithm, encoding: spec.encoding, prefix: spec.prefix };
  return {
    ...SHARED_SECRET_JSON,
    name: spec.name,
    summary: spec.summary,
    timestamped: false,
    signsBody: true,
    replayKey: 'content',
    options: spec.options ?? {},
    signatureHeaders: () => [format.header, ...(spec.alsoSignatureHeaders ?? [])],
    verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, format),
    ...(spec.deliveryIdHeader === undefined ? {} : { deliveryIdHeader: spec.deliveryIdHeader }),
    deliveryId: spec.deliveryId,
    eventType: spec.eventType,
    ...(spec.subscription === undefined ? {} : { subscription: spec.subscription }),
    async sign(settings, body, now, deliveryId) {
      return { headers: { ...spec.senderHeaders?.(deliveryId, now), [spec.header]: signBodyHmac(settings, body, format) } };
    },
  };
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** `t=<unix>,v1=<sig>[,v1=<sig>…]` (other schemes such as v0 are ignored, as Stripe and Calendly say). */
export function parseTimedHeader(value: string): { timestamp: number | undefined; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const item of value.split(',')) {
    const at = item.indexOf('=');
    const key = item.slice(0, at);
    const text = item.slice(at + 1);
    if (key === 't') timestamp = parseUnixSeconds(text);
    else if (key === 'v1' && HEX_SHA256.test(text)) signatures.push(text);
  }
  return { timestamp, signatures };
}

/** Verifies `<header>: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (Stripe's layout, which Calendly copies). */
export function verifyTimedHeader(settings: SignatureSettings<unknown>, request: SignedRequest, header: string): Verification {
  const value = headerOf(request.headers, header);
  if (value === undefined) return { ok: false, reason: 'missing' };
  const { timestamp, signatures } = parseTimedHeader(value);
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'malformed' };
  if (!anyMatches(signatures, expectedDigests(settings, 'sha256', 'hex', `${timestamp}.`, request.body))) return { ok: false, reason: 'mismatch' };
  return withinWindow(timestamp, settings, request.nowSeconds);
}

/** The `t=<unix>,v1=<hex>` value a Stripe-layout sender would send at `now`. */
export function signTimedHeader(settings: SignatureSettings<unknown>, body: Buffer, now: number): string {
  return `t=${now},v1=${firstSecretDigest(settings, 'sha256', 'hex', `${now}.`, body)}`;
}
