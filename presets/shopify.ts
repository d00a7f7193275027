import { defineSenderPreset, lines } from './sender.js';

const SHOP = '{{headers.x-shopify-shop-domain}}';
const ADMIN = (section: string, id: string): string => `{{#if headers.x-shopify-shop-domain}}https://${SHOP}/admin/${section}/{{${id}}}{{else}}${section} {{${id}}}{{/if}}`;
const BUYER = '{{#if (default customer.first_name customer.last_name)}} by {{oneline (default customer.first_name "") 60}}{{#if customer.last_name}}{{#if customer.first_name}} {{/if}}{{oneline customer.last_name 60}}{{/if}}{{else}}{{#if email}} by {{email}}{{/if}}{{/if}}';

const ORDER = lines(
  `Shopify order {{default name order_number id}} {{pick headers.x-shopify-topic "orders/create" "was placed" "orders/paid" "was paid" "orders/cancelled" "was cancelled" "orders/fulfilled" "was fulfilled" "orders/partially_fulfilled" "was partly fulfilled" "orders/updated" "was updated" "orders/edited" "was edited" "changed"}}${BUYER}{{#if total_price}}: {{total_price}} {{currency}}{{/if}}`,
  'Payment {{default financial_status "unknown"}}, fulfilment {{default fulfillment_status "none yet"}}{{#if cancel_reason}}, cancelled ({{pick cancel_reason}}){{/if}}{{#if line_items.[0].title}}',
  'Items: {{#each line_items}}{{#if @index}}; {{/if}}{{quantity}} × {{oneline title 80}}{{/each}}{{/if}}{{#if note}}',
  'Note: {{oneline note 500}}{{/if}}',
  ADMIN('orders', 'id'),
);

const REFUND = lines(
  'Shopify refund {{id}} on order {{order_id}}{{#if transactions.[0].amount}}: {{transactions.[0].amount}} {{transactions.[0].currency}}{{/if}}{{#if note}} ({{oneline note 200}}){{/if}}',
  ADMIN('orders', 'order_id'),
);

const DISPUTE = lines(
  'Shopify dispute {{id}} {{pick headers.x-shopify-topic "disputes/create" "opened" "disputes/update" "updated" "changed"}} on order {{order_id}}: {{amount}} {{currency}}, reason {{pick (default reason "not given")}}, status {{pick status}}{{#if evidence_due_by}}, evidence due {{evidence_due_by}}{{/if}}',
  '{{#if headers.x-shopify-shop-domain}}https://{{headers.x-shopify-shop-domain}}/admin/payments/dispute_evidences/{{id}}{{else}}dispute {{id}}{{/if}}',
);

const PRIVACY = lines(
  'Shopify privacy request {{headers.x-shopify-topic}} from {{default shop_domain headers.x-shopify-shop-domain}}{{#if customer.id}} for customer {{customer.id}}{{#if customer.email}} ({{customer.email}}){{/if}}{{/if}}{{#if orders_requested.[0]}}, orders {{join orders_requested ", "}}{{/if}}{{#if data_request.id}}, request {{data_request.id}}{{/if}}',
  'Shopify requires an answer within 30 days.',
);

const FALLBACK = lines(
  `Shopify {{headers.x-shopify-topic}} in ${SHOP}: {{default name title email admin_graphql_api_id id "(no id in the delivery)"}}`,
  '{{#if admin_graphql_api_id}}{{admin_graphql_api_id}}{{else}}https://{{headers.x-shopify-shop-domain}}/admin{{/if}}',
);

/** Shopify does not document a largest delivery; an order with hundreds of line items stays within a few MiB. */
const SHOPIFY_MAX_BODY_BYTES = 4 * 1024 * 1024;

const ORDER_TOPICS = ['orders/create', 'orders/paid', 'orders/cancelled', 'orders/fulfilled', 'orders/partially_fulfilled', 'orders/updated', 'orders/edited'];

/** A Shopify app's or store's webhooks (X-Shopify-Hmac-Sha256). */
export const shopifyPreset = defineSenderPreset({
  name: 'shopify',
  title: 'Shopify',
  scheme: 'shopify',
  summary: 'POST {hooks.path}/shopify: new and cancelled orders, refunds, chargebacks and privacy requests, one session per order.',
  maxBodyBytes: SHOPIFY_MAX_BODY_BYTES,
  defaultEvents: ['orders/create', 'orders/cancelled', 'refunds/create', 'disputes/create', 'customers/data_request', 'customers/redact', 'shop/redact'],
  groups: [
    {
      id: 'orders',
      handles: ORDER_TOPICS,
      message: ORDER,
      sessionKey: `{{#if id}}hook:shopify:${SHOP}/orders/{{id}}{{/if}}`,
      filters: [{ reason: 'Test orders (the Bogus gateway, test mode) are not business.', keep: { field: 'payload.test', notEquals: true } }],
      debounce: { windowSeconds: 60, maxWaitSeconds: 600, reason: 'An order sends `orders/updated` for each change (payment, fulfilment, tags, notes), often several in a minute.' },
    },
    { id: 'refunds', handles: ['refunds/create'], message: REFUND, sessionKey: `{{#if order_id}}hook:shopify:${SHOP}/orders/{{order_id}}{{/if}}` },
    { id: 'disputes', handles: ['disputes/create', 'disputes/update'], message: DISPUTE, sessionKey: `{{#if order_id}}hook:shopify:${SHOP}/orders/{{order_id}}{{/if}}` },
    {
      id: 'privacy',
      handles: ['customers/data_request', 'customers/redact', 'shop/redact'],
      message: PRIVACY,
      sessionKey: `{{#if (default customer.id shop_id)}}hook:shopify:${SHOP}/privacy/{{default customer.id shop_id}}{{/if}}`,
    },
  ],
  fallback: { message: FALLBACK, sessionKey: `{{#if id}}hook:shopify:${SHOP}/{{id}}{{/if}}` },
  example: {
    name: 'shopify',
    payload: {
      id: 5512345678901,
      name: '#1001',
      email: 'ada@example.com',
      total_price: '49.00',
      currency: 'EUR',
      financial_status: 'paid',
      fulfillment_status: null,
      customer: { first_name: 'Ada', last_name: 'Lovelace' },
      line_items: [{ title: 'Punch card set', quantity: 2 }],
    },
    headers: { 'x-shopify-topic': 'orders/create', 'x-shopify-shop-domain': 'engine-shop.myshopify.com' },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['Shopify order #1001 was placed by Ada Lovelace: 49.00 EUR', 'Items: 2 × Punch card set', 'https://engine-shop.myshopify.com/admin/orders/5512345678901'],
      sessionKey: 'hook:shopify:engine-shop.myshopify.com/orders/5512345678901',
    },
  },
});
