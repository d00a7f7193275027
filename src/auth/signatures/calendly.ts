import { anyMatches, headerOf, hmac, stringField, withinWindow } from './primitives.js';
import { parseTimedHeader } from './stripe.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'calendly-webhook-signature';

/**
 * Calendly: `Calendly-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the
 * webhook subscription's signing key. Calendly sends no delivery id: the replay key is the digest of
 * the signed time and body.
 */
export const calendly: SignatureScheme = {
  name: 'calendly',
  summary: 'Calendly-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">',
  timestamped: true,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'content',
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
  deliveryId: () => undefined,
  // "invitee.created", "invitee.canceled", "routing_form_submission.created".
  eventType: (_headers, payload) => stringField(payload, 'event'),
  async sign(settings, body, now) {
    const signature = hmac('sha256', settings.secrets[0] ?? '', `${now}.`, body).toString('hex');
    return { headers: { 'Calendly-Webhook-Signature': `t=${now},v1=${signature}` } };
  },
};
