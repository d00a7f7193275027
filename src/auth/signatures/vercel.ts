import { signBodyHmac, stringField, verifyBodyHmac, type BodyHmacFormat } from './primitives.js';
import type { SignatureScheme } from './types.js';

const FORMAT: BodyHmacFormat = { header: 'x-vercel-signature', algorithm: 'sha1', encoding: 'hex', prefix: '' };

/** Vercel: `x-vercel-signature: <hex HMAC-SHA1 of the body>` with the webhook's secret. No timestamp. */
export const vercel: SignatureScheme = {
  name: 'vercel',
  summary: 'x-vercel-signature: <hex HMAC-SHA1 of the body>',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'content',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [FORMAT.header],
  verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, FORMAT),
  deliveryId: (_headers, payload) => stringField(payload, 'id'),
  // "deployment.created", "deployment.error", "project.created".
  eventType: (_headers, payload) => stringField(payload, 'type'),
  async sign(settings, body) {
    return { headers: { 'x-vercel-signature': signBodyHmac(settings, body, FORMAT) } };
  },
};
