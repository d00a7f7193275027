/**
 * Stripe webhook events → a wake event (payment succeeded) or an agent message (payment failed).
 * Amounts arrive in the currency's minor unit (cents); zero-decimal currencies such as JPY have none.
 */
interface StripeObject {
  amount?: number;
  amount_due?: number;
  currency?: string;
  customer_email?: string | null;
  receipt_email?: string | null;
  failure_message?: string | null;
  last_payment_error?: { message?: string } | null;
}

interface Input {
  payload: { type?: string; id?: string; data?: { object?: StripeObject } };
}

type Override = { action: 'wake'; text: string } | { action: 'agent'; name: string; message: string };

const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);

export function formatAmount(minor: number, currency: string): string {
  const code = currency.toLowerCase();
  const digits = ZERO_DECIMAL.has(code) ? 0 : 2;
  const major = (minor / 10 ** digits).toFixed(digits);
  return `${major} ${code.toUpperCase()}`;
}

function reason(text: string | null | undefined): string {
  return text ? text.replace(/\.$/, '') : 'no reason given';
}

export default function stripePayment({ payload }: Input): Override | null {
  const object = payload.data?.object;
  if (!object || typeof object.currency !== 'string') return null;
  const who = object.receipt_email ?? object.customer_email ?? 'unknown customer';
  switch (payload.type) {
    case 'payment_intent.succeeded':
      return { action: 'wake', text: `Stripe: payment of ${formatAmount(object.amount ?? 0, object.currency)} from ${who} succeeded.` };
    case 'charge.failed':
      return {
        action: 'agent',
        name: 'Stripe',
        message: `A charge of ${formatAmount(object.amount ?? 0, object.currency)} from ${who} failed (${reason(object.failure_message)}). Decide whether the customer needs to be contacted.`,
      };
    case 'invoice.payment_failed':
      return {
        action: 'agent',
        name: 'Stripe',
        message: `Invoice payment of ${formatAmount(object.amount_due ?? 0, object.currency)} from ${who} failed (${reason(object.last_payment_error?.message)}). Decide whether the customer needs to be contacted.`,
      };
    default:
      return null;
  }
}

export const examples = [
  {
    name: 'payment succeeded',
    input: { payload: { type: 'payment_intent.succeeded', data: { object: { amount: 129900, currency: 'eur', receipt_email: 'ada@example.com' } } } },
    expect: { action: 'wake', text: 'Stripe: payment of 1299.00 EUR from ada@example.com succeeded.' },
  },
  {
    name: 'charge failed, zero-decimal currency',
    input: { payload: { type: 'charge.failed', data: { object: { amount: 5000, currency: 'jpy', failure_message: 'Your card was declined.' } } } },
    expect: {
      action: 'agent',
      name: 'Stripe',
      message: 'A charge of 5000 JPY from unknown customer failed (Your card was declined). Decide whether the customer needs to be contacted.',
    },
  },
  {
    name: 'invoice payment failed',
    input: {
      payload: {
        type: 'invoice.payment_failed',
        data: { object: { amount_due: 1999, currency: 'usd', customer_email: 'bob@example.com', last_payment_error: { message: 'Insufficient funds' } } },
      },
    },
    expect: {
      action: 'agent',
      name: 'Stripe',
      message: 'Invoice payment of 19.99 USD from bob@example.com failed (Insufficient funds). Decide whether the customer needs to be contacted.',
    },
  },
  { name: 'other events are skipped', input: { payload: { type: 'customer.created', data: { object: { currency: 'usd' } } } }, expect: null },
];
