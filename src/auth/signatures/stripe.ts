import { anyMatches, headerOf, hmac, parseUnixSeconds, stringField, withinWindow } from './primitives.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'stripe-signature';
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

/** Stripe: `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`; delivery id: the event's `id`. */
export const stripe: SignatureScheme = {
  name: 'stripe',
  summary: 'Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">',
  timestamped: true,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'delivery-id',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [HEADER],
  async verify(settings, request) {
    const header = headerOf(request.headers, HEADER);
    if (header === undefined) return { ok: false, reason: 'missing' };
    const { timestamp, signatures } = parseTimedHeader(header);
    if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'malformed' };
    const expected = settings.secrets.map((secret) => hmac('sha256', secret, `${timestamp}.`, request.body).toString('hex'));
    if (!anyMatches(signatures, expected)) return { ok: false, reason: 'mismatch' };
    return withinWindow(timestamp, settings, request.nowSeconds);
  },
  deliveryId: (_headers, payload) => stringField(payload, 'id'),
  eventType: (_headers, payload) => stringField(payload, 'type'),
  async sign(settings, body, now) {
    const signature = hmac('sha256', settings.secrets[0] ?? '', `${now}.`, body).toString('hex');
    return { headers: { 'Stripe-Signature': `t=${now},v1=${signature}` } };
  },
};
