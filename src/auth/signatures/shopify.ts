import { headerOf, signBodyHmac, verifyBodyHmac, type BodyHmacFormat } from './primitives.js';
import type { SignatureScheme } from './types.js';

const FORMAT: BodyHmacFormat = { header: 'x-shopify-hmac-sha256', algorithm: 'sha256', encoding: 'base64', prefix: '' };

/**
 * Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`. Delivery id: `X-Shopify-Event-Id`,
 * which Shopify documents as the same across duplicates of one event, else `X-Shopify-Webhook-Id`.
 */
export const shopify: SignatureScheme = {
  name: 'shopify',
  summary: 'X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>',
  timestamped: false,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'content',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [FORMAT.header],
  verify: async (settings, request) => verifyBodyHmac(settings, request.body, request.headers, FORMAT),
  deliveryIdHeader: 'x-shopify-event-id',
  deliveryId: (headers) => headerOf(headers, 'x-shopify-event-id') ?? headerOf(headers, 'x-shopify-webhook-id'),
  eventType: (headers) => headerOf(headers, 'x-shopify-topic'),
  async sign(settings, body, _now, deliveryId) {
    const signature = signBodyHmac(settings, body, FORMAT);
    return { headers: { 'X-Shopify-Topic': 'orders/create', 'X-Shopify-Event-Id': deliveryId, 'X-Shopify-Webhook-Id': deliveryId, 'X-Shopify-Hmac-Sha256': signature } };
  },
};
