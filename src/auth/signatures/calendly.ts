import { SHARED_SECRET_JSON, signTimedHeader, verifyTimedHeader } from './body-hmac.js';
import { stringField } from './primitives.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'calendly-webhook-signature';

/**
 * Calendly: `Calendly-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the
 * webhook subscription's signing key. Calendly sends no delivery id: the replay key is the digest of
 * the signed time and body.
 */
export const calendly: SignatureScheme = {
  ...SHARED_SECRET_JSON,
  name: 'calendly',
  summary: 'Calendly-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">',
  timestamped: true,
  signsBody: true,
  replayKey: 'content',
  signatureHeaders: () => [HEADER],
  verify: async (settings, request) => verifyTimedHeader(settings, request, HEADER),
  deliveryId: () => undefined,
  // "invitee.created", "invitee.canceled", "routing_form_submission.created".
  eventType: (_headers, payload) => stringField(payload, 'event'),
  async sign(settings, body, now) {
    return { headers: { 'Calendly-Webhook-Signature': signTimedHeader(settings, body, now) } };
  },
};
