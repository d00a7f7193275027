import { bodyHmacScheme } from './body-hmac.js';
import { stringField } from './primitives.js';

/** Typeform: `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>` with the webhook's secret. No timestamp. */
export const typeform = bodyHmacScheme({
  name: 'typeform',
  summary: 'Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>',
  header: 'Typeform-Signature',
  algorithm: 'sha256',
  encoding: 'base64',
  prefix: 'sha256=',
  deliveryId: (_headers, payload) => stringField(payload, 'event_id'),
  // "form_response".
  eventType: (_headers, payload) => stringField(payload, 'event_type'),
});
