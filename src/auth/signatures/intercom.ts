import { bodyHmacScheme } from './body-hmac.js';
import { stringField } from './primitives.js';

/** Intercom: `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body>` with the app's client secret. No timestamp. */
export const intercom = bodyHmacScheme({
  name: 'intercom',
  summary: 'X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body> (client secret)',
  header: 'X-Hub-Signature',
  algorithm: 'sha1',
  encoding: 'hex',
  prefix: 'sha1=',
  // The notification's id ("notif_…"), in the body.
  deliveryId: (_headers, payload) => stringField(payload, 'id'),
  // "conversation.user.created", "contact.created".
  eventType: (_headers, payload) => stringField(payload, 'topic'),
});
