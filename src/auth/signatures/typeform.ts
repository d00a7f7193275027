import { signBodyHmac, stringField, verifyBodyHmac, type BodyHmacFormat } from './primitives.js';
import type { SignatureScheme } from './types.js';

const FORMAT: BodyHmacFormat = { header: 'typeform-signature', algorithm: 'sha256', encoding: 'base64', prefix: 'sha256=' };

/** Typeform: `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>` with the webhook's secret. No timestamp. */
export const typeform: SignatureScheme = {
  name: 'typeform',
  summary: 'Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'content',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [FORMAT.header],
  verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, FORMAT),
  deliveryId: (_headers, payload) => stringField(payload, 'event_id'),
  // "form_response".
  eventType: (_headers, payload) => stringField(payload, 'event_type'),
  async sign(settings, body) {
    return { headers: { 'Typeform-Signature': signBodyHmac(settings, body, FORMAT) } };
  },
};
