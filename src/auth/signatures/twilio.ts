import { isUtf8 } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import Type, { type Static, type TObject } from 'typebox';
import { anyMatches } from './body-hmac.js';
import { headerOf, hmac, stringField } from './primitives.js';
import type { SignatureScheme, SignatureSettings } from './types.js';

const HEADER = 'x-twilio-signature';
const BASE64_SHA1 = /^[A-Za-z0-9+/]{27}=$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const PERCENT = 0x25;

const OPTIONS = {
  publicUrl: Type.Optional(
    Type.String({
      pattern: '^https?://[^#]+$',
      description: 'The URL Twilio calls, exactly as configured in Twilio (scheme, host, port, path; required): Twilio signs it, and behind a proxy it differs from what Hookgate sees. The query string is taken from the request.',
    }),
  ),
};
type TwilioOptions = Static<TObject<typeof OPTIONS>>;

/** The URL Twilio signed: the configured one with the request's query, with and without the default port (as Twilio's validators try). */
function signedUrls(publicUrl: string, query: string): string[] {
  const url = new URL(`${publicUrl.split('?')[0] ?? ''}${query === '' ? '' : `?${query}`}`);
  // A default port is dropped when parsed, so `port` is empty unless a non-default one was given.
  const withoutPort = url.href;
  if (url.port !== '') return [withoutPort];
  const auth = url.username === '' ? '' : `${url.username}${url.password === '' ? '' : `:${url.password}`}@`;
  const withPort = `${url.protocol}//${auth}${url.hostname}:${url.protocol === 'https:' ? 443 : 80}${url.pathname}${url.search}`;
  return [withoutPort, withPort];
}

/** Form parameters as Twilio concatenates them: names sorted, each value once, values sorted, `name + value`. */
function formParameters(body: Buffer): string {
  const values = new Map<string, Set<string>>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    const set = values.get(name) ?? new Set<string>();
    set.add(value);
    values.set(name, set);
  }
  return [...values.keys()]
    .sort()
    .map((name) => [...(values.get(name) as Set<string>)].sort().map((value) => `${name}${value}`).join(''))
    .join('');
}

/**
 * Whether the form's fields are UTF-8 once percent-decoded. Decoded text that is not UTF-8 is read
 * with replacement characters, so `%FF` and `%FE` would sign alike. Decoding the whole body at once
 * is the same test as decoding field by field: the separators are ASCII, never inside a character.
 */
function decodesToUtf8(body: Buffer): boolean {
  const decoded = Buffer.allocUnsafe(body.length);
  let length = 0;
  for (let at = 0; at < body.length; at += 1) {
    const byte = body[at] as number;
    const high = byte === PERCENT ? hexValue(body[at + 1]) : -1;
    const low = high < 0 ? -1 : hexValue(body[at + 2]);
    if (low < 0) {
      decoded[length++] = byte;
      continue;
    }
    decoded[length++] = high * 16 + low;
    at += 2;
  }
  return isUtf8(decoded.subarray(0, length));
}

function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

type Refusal = { reason: 'mismatch' | 'undecodable' };

/**
 * What follows the URL in the signed text: the sorted form parameters; for JSON bodies nothing, the
 * URL carrying bodySHA256 (the body's hex SHA-256), which must match.
 */
function signedTail(body: Buffer, query: string): { tail: string } | Refusal {
  const declared = new URLSearchParams(query).get('bodySHA256');
  if (declared === null) return decodesToUtf8(body) ? { tail: formParameters(body) } : { reason: 'undecodable' };
  const actual = createHash('sha256').update(body).digest('hex');
  return HEX_SHA256.test(declared) && timingSafeEqual(Buffer.from(declared), Buffer.from(actual)) ? { tail: '' } : { reason: 'mismatch' };
}

/** The texts any secret may have signed (the URL with and without its default port, then the tail); the first is the canonical one. */
function signedTexts(settings: SignatureSettings<TwilioOptions>, body: Buffer, query: string): { texts: string[] } | Refusal {
  const signed = signedTail(body, query);
  if (!('tail' in signed)) return signed;
  if (!URL.canParse(`${settings.options.publicUrl ?? ''}?${query}`)) return { reason: 'mismatch' };
  return { texts: signedUrls(settings.options.publicUrl ?? '', query).map((url) => `${url}${signed.tail}`) };
}

/**
 * Twilio: `X-Twilio-Signature: <base64 HMAC-SHA1 (auth token) of the URL Twilio called + the sorted
 * form parameters' name+value>`; JSON bodies are bound through the `bodySHA256` query parameter.
 * There is no timestamp: the replay key is the digest of the signed text (URL and decoded, sorted
 * fields), so a re-spelling of a captured body (fields reordered, `%20` for `+`, lower-case hex) is a
 * replay, never a new delivery.
 */
export const twilio: SignatureScheme<TwilioOptions> = {
  name: 'twilio',
  summary: 'X-Twilio-Signature: <base64 HMAC-SHA1 of publicUrl(+query) + sorted form name+value> (JSON: ?bodySHA256=<hex>)',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => true,
  replayKey: 'content',
  options: OPTIONS,
  checkSettings(settings) {
    const url = settings.options.publicUrl;
    if (url === undefined) return [{ field: 'publicUrl', message: 'scheme "twilio" needs signature.publicUrl (the URL Twilio calls, as configured in Twilio)' }];
    return URL.canParse(url) ? [] : [{ field: 'publicUrl', message: 'signature.publicUrl is not a URL' }];
  },
  signatureHeaders: () => [HEADER],
  async verify(settings, request) {
    const presented = headerOf(request.headers, HEADER);
    if (presented === undefined) return { ok: false, reason: 'missing' };
    if (!BASE64_SHA1.test(presented)) return { ok: false, reason: 'malformed' };
    const signed = signedTexts(settings, request.body, request.query);
    if (!('texts' in signed)) return { ok: false, reason: signed.reason };
    const expected = settings.secrets.flatMap((secret) => signed.texts.map((text) => hmac('sha1', secret, text).toString('base64')));
    return anyMatches([presented], expected) ? { ok: true, timestamp: undefined, signedContent: signed.texts[0] as string } : { ok: false, reason: 'mismatch' };
  },
  deliveryIdHeader: 'i-twilio-idempotency-token',
  deliveryId: (headers) => headerOf(headers, 'i-twilio-idempotency-token'),
  // "message.received", "message.delivered", "call.ringing": what the status parameter says.
  eventType(_headers, payload) {
    const message = stringField(payload, 'MessageStatus') ?? stringField(payload, 'SmsStatus');
    if (message !== undefined) return `message.${message}`;
    const call = stringField(payload, 'CallStatus');
    return call === undefined ? undefined : `call.${call}`;
  },
  async sign(settings, body, _now, deliveryId) {
    const json = body.toString('utf8').trimStart().startsWith('{');
    const query = json ? `bodySHA256=${createHash('sha256').update(body).digest('hex')}` : '';
    const [url] = signedUrls(settings.options.publicUrl ?? '', query);
    const signature = hmac('sha1', settings.secrets[0] ?? '', url ?? '', json ? '' : formParameters(body)).toString('base64');
    return { headers: { 'I-Twilio-Idempotency-Token': deliveryId, 'X-Twilio-Signature': signature }, ...(json ? { query } : {}) };
  },
};
