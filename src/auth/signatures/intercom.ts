import { signBodyHmac, stringField, verifyBodyHmac, type BodyHmacFormat } from './primitives.js';
import type { SignatureScheme } from './types.js';

const FORMAT: BodyHmacFormat = { header: 'x-hub-signature', algorithm: 'sha1', encoding: 'hex', prefix: 'sha1=' };

/** Intercom: `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body>` with the app's client secret. No timestamp. */
export const intercom: SignatureScheme = {
  name: 'intercom',
  summary: 'X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body> (client secret)',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'content',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [FORMAT.header],
  verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, FORMAT),
  // The notification's id ("notif_…"), in the body.
  deliveryId: (_headers, payload) => stringField(payload, 'id'),
  // "conversation.user.created", "contact.created".
  eventType: (_headers, payload) => stringField(payload, 'topic'),
  async sign(settings, body) {
    return { headers: { 'X-Hub-Signature': signBodyHmac(settings, body, FORMAT) } };
  },
};
