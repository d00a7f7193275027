import { headerOf, signBodyHmac, verifyBodyHmac, withAction, type BodyHmacFormat } from './primitives.js';
import type { SignatureScheme } from './types.js';

const FORMAT: BodyHmacFormat = { header: 'sentry-hook-signature', algorithm: 'sha256', encoding: 'hex', prefix: '' };

/**
 * Sentry integrations: `Sentry-Hook-Signature: <hex HMAC-SHA256 of the body>` with the integration's
 * client secret. `Sentry-Hook-Timestamp` is sent but not signed, so it proves nothing and is not
 * checked; the replay key is the body's digest.
 */
export const sentry: SignatureScheme = {
  name: 'sentry',
  summary: 'Sentry-Hook-Signature: <hex HMAC-SHA256 of the body> (client secret); Sentry-Hook-Resource names the resource',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'content',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [FORMAT.header, 'sentry-app-signature'],
  verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, FORMAT),
  deliveryIdHeader: 'request-id',
  deliveryId: (headers) => headerOf(headers, 'request-id'),
  // "issue.created", "event_alert.triggered": the resource header and the payload's action.
  eventType: (headers, payload) => withAction(headerOf(headers, 'sentry-hook-resource'), payload['action']),
  async sign(settings, body, now, deliveryId) {
    return {
      headers: { 'Sentry-Hook-Resource': 'issue', 'Sentry-Hook-Timestamp': String(now), 'Request-ID': deliveryId, 'Sentry-Hook-Signature': signBodyHmac(settings, body, FORMAT) },
    };
  },
};
