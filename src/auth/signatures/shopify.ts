import { bodyHmacScheme } from './body-hmac.js';
import { headerOf } from './primitives.js';

/**
 * Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`. Delivery id: `X-Shopify-Event-Id`,
 * which Shopify documents as the same across duplicates of one event, else `X-Shopify-Webhook-Id`.
 */
export const shopify = bodyHmacScheme({
  name: 'shopify',
  summary: 'X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>',
  header: 'X-Shopify-Hmac-Sha256',
  algorithm: 'sha256',
  encoding: 'base64',
  prefix: '',
  deliveryIdHeader: 'x-shopify-event-id',
  deliveryId: (headers) => headerOf(headers, 'x-shopify-event-id') ?? headerOf(headers, 'x-shopify-webhook-id'),
  eventType: (headers) => headerOf(headers, 'x-shopify-topic'),
  senderHeaders: (deliveryId) => ({ 'X-Shopify-Topic': 'orders/create', 'X-Shopify-Event-Id': deliveryId, 'X-Shopify-Webhook-Id': deliveryId }),
});
