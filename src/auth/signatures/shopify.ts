import { anyMatches, hmac, type SignatureScheme } from './types.js';

const HEADER = 'x-shopify-hmac-sha256';

/**
 * Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`. Delivery id: `X-Shopify-Event-Id`,
 * which Shopify documents as the same across duplicates of one event, else `X-Shopify-Webhook-Id`.
 */
export const shopify: SignatureScheme = {
  name: 'shopify',
  summary: 'X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>',
  timestamped: false,
  acceptsForm: false,
  options: [],
  checkSettings: () => [],
  signatureHeaders: () => [HEADER],
  async verify(settings, request) {
    const presented = request.headers[HEADER];
    if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
    const expected = settings.secrets.map((secret) => hmac('sha256', secret, request.body).toString('base64'));
    return anyMatches([presented], expected) ? { ok: true, timestamp: undefined } : { ok: false, reason: 'mismatch' };
  },
  deliveryId: (headers) => headers['x-shopify-event-id'] || headers['x-shopify-webhook-id'] || undefined,
  async sign(settings, body, _now, deliveryId) {
    const signature = hmac('sha256', settings.secrets[0] ?? '', body).toString('base64');
    return { 'X-Shopify-Topic': 'orders/create', 'X-Shopify-Event-Id': deliveryId, 'X-Shopify-Webhook-Id': deliveryId, 'X-Shopify-Hmac-Sha256': signature };
  },
};
