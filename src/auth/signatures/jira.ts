import { headerOf, signBodyHmac, stringField, verifyBodyHmac, type BodyHmacFormat } from './primitives.js';
import type { SignatureScheme } from './types.js';

const FORMAT: BodyHmacFormat = { header: 'x-hub-signature', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' };

/** Jira (webhooks with a secret): `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`. No timestamp. */
export const jira: SignatureScheme = {
  name: 'jira',
  summary: 'X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'content',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [FORMAT.header],
  verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, FORMAT),
  deliveryIdHeader: 'x-atlassian-webhook-identifier',
  deliveryId: (headers) => headerOf(headers, 'x-atlassian-webhook-identifier'),
  // "jira:issue_created", "comment_created".
  eventType: (_headers, payload) => stringField(payload, 'webhookEvent'),
  async sign(settings, body, _now, deliveryId) {
    return { headers: { 'X-Atlassian-Webhook-Identifier': deliveryId, 'X-Hub-Signature': signBodyHmac(settings, body, FORMAT) } };
  },
};
