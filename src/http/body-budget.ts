import type { Context, Middleware } from 'koa';
import { HookError } from '../errors.js';
import { realClock } from '../runtime/clock.js';
import { meterOf } from './body-meter.js';
import { Charge, Ledger, type BodyCharge } from './body-ledger.js';

/** Seconds a sender refused for want of budget is told to wait (Retry-After). */
const RETRY_AFTER_SECONDS = 1;

export { STALL_GRACE_MS, STALLED_BELOW_BYTES, type BodyCharge } from './body-ledger.js';

/**
 * Bounds the request bodies the server holds at once (hooks.bodyBudgetBytes). Each body is
 * buffered whole and then copied (text, parsed payload, the sandbox's input, the store's
 * message): without a bound, a burst of large bodies grows the heap with the number of senders,
 * and the heap limits Hookgate sets (docs/performance.md) would turn that burst into an
 * out-of-memory crash. A request is charged what its body has delivered, growing as bytes arrive,
 * until its response: a body that has not arrived costs nothing, so senders that declare large
 * bodies and send them slowly cannot crowd out the bodies that did arrive. Bodies read before their
 * sender is authenticated also count against a share per client (`perClientBytes`; the key the auth
 * guard gives it: the address, an IPv6 client's /64). When a chunk does not fit the budget, the
 * bodies that stalled (incomplete, arriving for STALL_GRACE_MS or more, fewer than
 * STALLED_BELOW_BYTES lately) are cut with 408, slowest first, until it does: bodies that stop arriving cannot hold the room of bodies that
 * arrive, however many addresses send them. A chunk that still does not fit refuses its request
 * with 503 and Retry-After.
 */
export class BodyBudget {
  private readonly ledger: Ledger;

  constructor(limitBytes: number, perClientBytes: number = limitBytes, clock: { now(): number } = realClock) {
    this.ledger = new Ledger(limitBytes, perClientBytes, clock);
  }

  get limitBytes(): number {
    return this.ledger.limitBytes;
  }

  /** Bytes charged to requests in flight now. */
  get heldBytes(): number {
    return this.ledger.held;
  }

  /** Bytes charged now to the bodies of `client` read before authentication. */
  heldBy(client: string): number {
    return this.ledger.heldBy(client);
  }

  /** A new request's charge, empty; `complete` tells whether its body has arrived whole (such a body is never cut). */
  open(complete: () => boolean = () => false): BodyCharge {
    return new Charge(this.ledger, complete);
  }
}

/** hooks.bodyBudgetPerClientBytes, or a quarter of the budget when it is not set. */
export function perClientShare(hooks: { bodyBudgetBytes: number; bodyBudgetPerClientBytes?: number | undefined }): number {
  return hooks.bodyBudgetPerClientBytes ?? Math.max(1, Math.floor(hooks.bodyBudgetBytes / 4));
}

const CHARGE_STATE = 'bodyCharge';

/** The request's charge, when the budget's guard opened one. */
export function chargeOf(ctx: Context): BodyCharge | undefined {
  const charge: unknown = ctx.state[CHARGE_STATE];
  return charge === undefined ? undefined : (charge as BodyCharge);
}

export function budgetRefusal(): HookError {
  // The rest of the body is left unread: the connection closes after the answer.
  return new HookError('SERVER_BUSY', 'too many request bodies in flight; retry shortly', { retryAfterSeconds: RETRY_AFTER_SECONDS, closeConnection: true });
}

/**
 * Opens the request's charge for the rest of the request and grows it as its body arrives; the
 * first chunk that does not fit refuses the request (the reader racing it answers 503).
 */
export function bodyBudgetGuard(budget: BodyBudget): Middleware {
  // Synchronous, as the other hook-path checks: it hands on next()'s promise (no async layer per request).
  return (ctx, next) => {
    const meter = meterOf(ctx);
    const charge = budget.open(() => meter.complete);
    const done = (): void => {
      charge.release();
      meter.detach();
    };
    if (!charge.grow(meter.received)) {
      done();
      throw budgetRefusal();
    }
    meter.onBytes((bytes) => {
      if (charge.refusal === undefined && !charge.grow(bytes)) charge.refuse(budgetRefusal());
    });
    ctx.state[CHARGE_STATE] = charge;
    let rest: Promise<unknown>;
    try {
      rest = next();
    } catch (error) {
      done();
      throw error;
    }
    return rest.then(done, (error: unknown) => {
      done();
      throw error;
    });
  };
}
