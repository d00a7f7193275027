import { bodyHmacScheme } from './body-hmac.js';
import { headerOf, withAction } from './primitives.js';

/**
 * Sentry integrations: `Sentry-Hook-Signature: <hex HMAC-SHA256 of the body>` with the integration's
 * client secret. `Sentry-Hook-Timestamp` is sent but not signed, so it proves nothing and is not
 * checked; the replay key is the body's digest.
 */
export const sentry = bodyHmacScheme({
  name: 'sentry',
  summary: 'Sentry-Hook-Signature: <hex HMAC-SHA256 of the body> (client secret); Sentry-Hook-Resource names the resource',
  header: 'Sentry-Hook-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  prefix: '',
  alsoSignatureHeaders: ['sentry-app-signature'],
  deliveryIdHeader: 'request-id',
  deliveryId: (headers) => headerOf(headers, 'request-id'),
  // "issue.created", "event_alert.triggered": the resource header and the payload's action.
  eventType: (headers, payload) => withAction(headerOf(headers, 'sentry-hook-resource'), payload['action']),
  senderHeaders: (deliveryId, now) => ({ 'Sentry-Hook-Resource': 'issue', 'Sentry-Hook-Timestamp': String(now), 'Request-ID': deliveryId }),
});
