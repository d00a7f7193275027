import { SHARED_SECRET_JSON, signTimedHeader, verifyTimedHeader } from './body-hmac.js';
import { stringField } from './primitives.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'stripe-signature';

/** Stripe: `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`; delivery id: the event's `id`. */
export const stripe: SignatureScheme = {
  ...SHARED_SECRET_JSON,
  name: 'stripe',
  summary: 'Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">',
  timestamped: true,
  signsBody: true,
  replayKey: 'delivery-id',
  signatureHeaders: () => [HEADER],
  verify: async (settings, request) => verifyTimedHeader(settings, request, HEADER),
  deliveryId: (_headers, payload) => stringField(payload, 'id'),
  eventType: (_headers, payload) => stringField(payload, 'type'),
  async sign(settings, body, now) {
    return { headers: { 'Stripe-Signature': signTimedHeader(settings, body, now) } };
  },
};
