import { defineSenderPreset, lines } from './sender.js';

const OBJECT = 'data.object';
/** Stripe's dashboard page of the event's object (test-mode pages under /test). */
const DASHBOARD = (section: string): string =>
  `https://dashboard.stripe.com/{{#unless livemode}}test/{{/unless}}{{#if ${OBJECT}.id}}${section}/{{${OBJECT}.id}}{{else}}events/{{id}}{{/if}}`;
const CUSTOMER_KEY = `{{#if (default ${OBJECT}.customer ${OBJECT}.id)}}hook:stripe:{{default ${OBJECT}.customer ${OBJECT}.id}}{{/if}}`;
const CUSTOMER = `{{#if ${OBJECT}.customer_email}} for {{${OBJECT}.customer_email}}{{else}}{{#if ${OBJECT}.customer}} for customer {{${OBJECT}.customer}}{{/if}}{{/if}}`;

const INVOICE = lines(
  `Stripe invoice {{default ${OBJECT}.number ${OBJECT}.id}}{{pick type "invoice.payment_failed" " payment failed" "invoice.payment_action_required" " needs the customer to confirm the payment" "invoice.paid" " was paid" "invoice.payment_succeeded" " was paid" "invoice.finalization_failed" " could not be finalized" "invoice.marked_uncollectible" " was marked uncollectible" "invoice.upcoming" " is coming up" "invoice.overdue" " is overdue" ""}}${CUSTOMER}: {{money (default ${OBJECT}.amount_due ${OBJECT}.total) ${OBJECT}.currency}}`,
  `{{#if ${OBJECT}.status}}Status: {{${OBJECT}.status}}
{{/if}}{{#if ${OBJECT}.attempt_count}}Attempt: {{${OBJECT}.attempt_count}}
{{/if}}{{#if ${OBJECT}.next_payment_attempt}}Next attempt: {{date ${OBJECT}.next_payment_attempt}}
{{/if}}{{#if ${OBJECT}.last_finalization_error.message}}Error: {{oneline ${OBJECT}.last_finalization_error.message 300}}
{{/if}}{{#if ${OBJECT}.hosted_invoice_url}}{{${OBJECT}.hosted_invoice_url}}{{else}}${DASHBOARD('invoices')}{{/if}}`,
);

const CHARGE = lines(
  `Stripe charge {{${OBJECT}.id}} {{pick type "charge.failed" "failed" "charge.succeeded" "succeeded" "charge.refunded" "was refunded" "charge.captured" "was captured" "charge.expired" "expired" "charge.pending" "is pending" "changed"}}: {{money ${OBJECT}.amount ${OBJECT}.currency}}${CUSTOMER}{{#if ${OBJECT}.description}} ({{oneline ${OBJECT}.description 120}}){{/if}}`,
  `{{#if ${OBJECT}.failure_message}}Reason: {{oneline ${OBJECT}.failure_message 300}}{{#if ${OBJECT}.failure_code}} ({{${OBJECT}.failure_code}}){{/if}}`,
  `{{/if}}${DASHBOARD('payments')}`,
);

const DISPUTE = lines(
  `Stripe dispute {{${OBJECT}.id}} {{pick type "charge.dispute.created" "opened" "charge.dispute.closed" "closed" "charge.dispute.updated" "updated" "charge.dispute.funds_withdrawn" "withdrew the funds" "charge.dispute.funds_reinstated" "reinstated the funds" "changed"}} on charge {{${OBJECT}.charge}}: {{money ${OBJECT}.amount ${OBJECT}.currency}}`,
  `Reason {{pick (default ${OBJECT}.reason "not given")}}, status {{pick ${OBJECT}.status}}{{#if ${OBJECT}.evidence_details.due_by}}, evidence due {{date ${OBJECT}.evidence_details.due_by}}{{/if}}`,
  DASHBOARD('disputes'),
);

const SUBSCRIPTION = lines(
  `Stripe subscription{{#if ${OBJECT}.id}} {{${OBJECT}.id}}{{/if}}{{#if ${OBJECT}.customer}} of customer {{${OBJECT}.customer}}{{/if}} {{pick type "customer.subscription.deleted" "ended" "customer.subscription.created" "started" "customer.subscription.updated" "changed" "customer.subscription.trial_will_end" "ends its trial soon" "customer.subscription.paused" "was paused" "customer.subscription.resumed" "resumed" "changed"}}`,
  `Status {{${OBJECT}.status}}{{#if ${OBJECT}.plan.nickname}}, plan {{${OBJECT}.plan.nickname}}{{/if}}{{#if ${OBJECT}.trial_end}}, trial ends {{date ${OBJECT}.trial_end}}{{/if}}{{#if ${OBJECT}.cancel_at_period_end}}, cancels at period end{{/if}}{{#if ${OBJECT}.cancellation_details.reason}}`,
  `Cancellation: {{pick ${OBJECT}.cancellation_details.reason}}{{#if ${OBJECT}.cancellation_details.feedback}} ({{pick ${OBJECT}.cancellation_details.feedback}}){{/if}}{{/if}}`,
  DASHBOARD('subscriptions'),
);

const CHECKOUT = lines(
  `Stripe checkout session {{${OBJECT}.id}} {{pick type "checkout.session.completed" "completed" "checkout.session.async_payment_failed" "payment failed" "checkout.session.async_payment_succeeded" "payment succeeded" "checkout.session.expired" "expired" "changed"}}: {{money ${OBJECT}.amount_total ${OBJECT}.currency}}{{#if ${OBJECT}.customer_details.email}} from {{${OBJECT}.customer_details.email}}{{/if}}`,
  `{{#if ${OBJECT}.payment_status}}Payment status: {{${OBJECT}.payment_status}}
{{/if}}${DASHBOARD('checkout/sessions')}`,
);

const PAYMENT_INTENT = lines(
  `Stripe payment {{${OBJECT}.id}} {{pick type "payment_intent.payment_failed" "failed" "payment_intent.succeeded" "succeeded" "payment_intent.requires_action" "needs the customer to act" "payment_intent.canceled" "was canceled" "changed"}}: {{money ${OBJECT}.amount ${OBJECT}.currency}}${CUSTOMER}`,
  `{{#if ${OBJECT}.last_payment_error.message}}Reason: {{oneline ${OBJECT}.last_payment_error.message 300}}`,
  `{{/if}}${DASHBOARD('payments')}`,
);

const CUSTOMER_EVENT = lines(
  `Stripe customer {{${OBJECT}.id}} {{pick type "customer.created" "was created" "customer.updated" "was updated" "customer.deleted" "was deleted" "changed"}}{{#if ${OBJECT}.email}}: {{${OBJECT}.email}}{{/if}}{{#if ${OBJECT}.name}} ({{oneline ${OBJECT}.name 120}}){{/if}}`,
  DASHBOARD('customers'),
);

const FALLBACK = lines(
  `Stripe {{default type "event"}}: {{#if ${OBJECT}.id}}{{pick (default ${OBJECT}.object "object")}} {{${OBJECT}.id}}{{else}}{{#if related_object.id}}{{pick related_object.type}} {{related_object.id}}{{else}}event {{id}}{{/if}}{{/if}}`,
  `{{#if ${OBJECT}.id}}https://dashboard.stripe.com/{{#unless livemode}}test/{{/unless}}events/{{id}}{{else}}{{#if related_object.url}}https://api.stripe.com{{related_object.url}}{{else}}https://dashboard.stripe.com/events/{{id}}{{/if}}{{/if}}`,
);

/** Stripe does not document a largest delivery; an event holds one API object (invoices with their first lines), well under 1 MiB. */
const STRIPE_MAX_BODY_BYTES = 1024 * 1024;

/** A Stripe account's webhook endpoint (Stripe-Signature). */
export const stripePreset = defineSenderPreset({
  name: 'stripe',
  title: 'Stripe',
  scheme: 'stripe',
  summary: 'POST {hooks.path}/stripe: failed payments, disputes, ending subscriptions and trials, one session per customer.',
  maxBodyBytes: STRIPE_MAX_BODY_BYTES,
  defaultEvents: [
    'invoice.payment_failed',
    'invoice.payment_action_required',
    'charge.failed',
    'charge.dispute.created',
    'charge.dispute.closed',
    'customer.subscription.deleted',
    'customer.subscription.trial_will_end',
    'checkout.session.async_payment_failed',
  ],
  groups: [
    { id: 'invoice', handles: ['invoice'], message: INVOICE, sessionKey: CUSTOMER_KEY },
    {
      id: 'charge.dispute',
      handles: ['charge.dispute.*'],
      message: DISPUTE,
      sessionKey: `{{#if ${OBJECT}.charge}}hook:stripe:{{${OBJECT}.charge}}{{/if}}`,
    },
    {
      id: 'charge',
      handles: ['charge.failed', 'charge.succeeded', 'charge.refunded', 'charge.captured', 'charge.expired', 'charge.pending', 'charge.updated'],
      message: CHARGE,
      sessionKey: CUSTOMER_KEY,
      filters: [
        {
          reason: 'A failed charge of an invoice also arrives as `invoice.payment_failed`, which says more; only charges outside invoices are kept.',
          keep: { any: [{ field: 'event', notEquals: 'charge.failed' }, { field: `payload.${OBJECT}.invoice`, exists: false }, { field: `payload.${OBJECT}.invoice`, equals: null }] },
        },
      ],
    },
    { id: 'subscription', handles: ['customer.subscription.*'], message: SUBSCRIPTION, sessionKey: CUSTOMER_KEY },
    { id: 'checkout', handles: ['checkout.session.*'], message: CHECKOUT, sessionKey: CUSTOMER_KEY },
    { id: 'payment_intent', handles: ['payment_intent'], message: PAYMENT_INTENT, sessionKey: CUSTOMER_KEY },
    { id: 'customer', handles: ['customer.created', 'customer.updated', 'customer.deleted'], message: CUSTOMER_EVENT, sessionKey: CUSTOMER_KEY },
  ],
  fallback: { message: FALLBACK, sessionKey: CUSTOMER_KEY },
  example: {
    name: 'stripe',
    payload: {
      id: 'evt_1',
      object: 'event',
      type: 'invoice.payment_failed',
      livemode: false,
      data: { object: { id: 'in_1', object: 'invoice', number: 'A1B2-0001', customer: 'cus_42', customer_email: 'ada@example.com', amount_due: 4900, currency: 'eur', status: 'open', attempt_count: 2, hosted_invoice_url: 'https://invoice.stripe.com/i/acct_1/test_1' } },
    },
    expect: {
      actions: 1,
      kind: 'agent',
      contains: ['Stripe invoice A1B2-0001 payment failed for ada@example.com: 49.00 EUR', 'https://invoice.stripe.com/i/acct_1/test_1'],
      sessionKey: 'hook:stripe:cus_42',
    },
  },
});
