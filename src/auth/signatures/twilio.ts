import { createHash, timingSafeEqual } from 'node:crypto';
import Type, { type Static, type TObject } from 'typebox';
import { anyMatches } from './body-hmac.js';
import { headerOf, hmac, stringField } from './primitives.js';
import type { SignatureScheme, SignatureSettings } from './types.js';

const HEADER = 'x-twilio-signature';
const BASE64_SHA1 = /^[A-Za-z0-9+/]{27}=$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

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

/** JSON bodies: the URL carries bodySHA256 (the body's hex SHA-256) and no parameters are appended; undefined when it does not match. */
function signedTail(body: Buffer, query: string): string | undefined {
  const declared = new URLSearchParams(query).get('bodySHA256');
  if (declared === null) return formParameters(body);
  const actual = createHash('sha256').update(body).digest('hex');
  return HEX_SHA256.test(declared) && timingSafeEqual(Buffer.from(declared), Buffer.from(actual)) ? '' : undefined;
}

function expectedSignatures(settings: SignatureSettings<TwilioOptions>, body: Buffer, query: string): string[] | undefined {
  const tail = signedTail(body, query);
  if (tail === undefined || !URL.canParse(`${settings.options.publicUrl ?? ''}?${query}`)) return undefined;
  const urls = signedUrls(settings.options.publicUrl ?? '', query);
  return settings.secrets.flatMap((secret) => urls.map((url) => hmac('sha1', secret, url, tail).toString('base64')));
}

/**
 * Twilio: `X-Twilio-Signature: <base64 HMAC-SHA1 (auth token) of the URL Twilio called + the sorted
 * form parameters' name+value>`; JSON bodies are bound through the `bodySHA256` query parameter.
 * There is no timestamp: the replay key is the signed content's digest.
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
    const expected = expectedSignatures(settings, request.body, request.query);
    return expected !== undefined && anyMatches([presented], expected) ? { ok: true, timestamp: undefined } : { ok: false, reason: 'mismatch' };
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
