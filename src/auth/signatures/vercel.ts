import { bodyHmacScheme } from './body-hmac.js';
import { stringField } from './primitives.js';

/** Vercel: `x-vercel-signature: <hex HMAC-SHA1 of the body>` with the webhook's secret. No timestamp. */
export const vercel = bodyHmacScheme({
  name: 'vercel',
  summary: 'x-vercel-signature: <hex HMAC-SHA1 of the body>',
  header: 'x-vercel-signature',
  algorithm: 'sha1',
  encoding: 'hex',
  prefix: '',
  deliveryId: (_headers, payload) => stringField(payload, 'id'),
  // "deployment.created", "deployment.error", "project.created".
  eventType: (_headers, payload) => stringField(payload, 'type'),
});
