import { bodyHmacScheme } from './body-hmac.js';
import { headerOf, stringField } from './primitives.js';

/** Jira (webhooks with a secret): `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`. No timestamp. */
export const jira = bodyHmacScheme({
  name: 'jira',
  summary: 'X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>',
  header: 'X-Hub-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  prefix: 'sha256=',
  deliveryIdHeader: 'x-atlassian-webhook-identifier',
  deliveryId: (headers) => headerOf(headers, 'x-atlassian-webhook-identifier'),
  // "jira:issue_created", "comment_created".
  eventType: (_headers, payload) => stringField(payload, 'webhookEvent'),
  senderHeaders: (deliveryId) => ({ 'X-Atlassian-Webhook-Identifier': deliveryId }),
});
