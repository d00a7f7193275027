import type { Middleware } from 'koa';
import { HookError } from '../errors.js';

/** Seconds a sender refused for want of budget is told to wait (Retry-After). */
const RETRY_AFTER_SECONDS = 1;

/**
 * Bounds the request bodies the server holds at once (hooks.bodyBudgetBytes). Each body is
 * buffered whole and then copied (text, parsed payload, the sandbox's input, the store's
 * message): without a bound, a burst of large bodies grows the heap with the number of senders,
 * and the heap limits Hookgate sets (docs/performance.md) would turn that burst into an
 * out-of-memory crash. A request is charged from before its body is read until its response;
 * one that would take the total past the budget is refused with 503 and Retry-After instead.
 */
export class BodyBudget {
  readonly limitBytes: number;
  private held = 0;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  /** Bytes charged to requests in flight now. */
  get heldBytes(): number {
    return this.held;
  }

  /**
   * Charges `bytes`; false when they do not fit. A body larger than the whole budget still gets in
   * when nothing else is held, so a path whose limit exceeds the budget is never refused forever.
   */
  tryTake(bytes: number): boolean {
    if (this.held > 0 && this.held + bytes > this.limitBytes) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/**
 * What a request's body may cost: its declared Content-Length when the bytes arrive as they are,
 * else (no length, or a Content-Encoding that inflates) the path's body limit, the most it may become.
 */
export function chargeOf(headers: Record<string, string | string[] | undefined>, maxBodyBytes: number): number {
  const declared = headers['content-length'];
  const encoding = headers['content-encoding'];
  const identity = encoding === undefined || encoding === '' || encoding === 'identity';
  if (identity && typeof declared === 'string' && /^\d+$/.test(declared)) return Math.min(Number(declared), maxBodyBytes);
  return maxBodyBytes;
}

/** Charges the request's body to the budget for the rest of the request, or answers 503 when it does not fit. */
export function bodyBudgetGuard(budget: BodyBudget, maxBodyBytes: number): Middleware {
  // Synchronous, as the other hook-path checks: it hands on next()'s promise (no async layer per request).
  return (ctx, next) => {
    const bytes = chargeOf(ctx.req.headers, maxBodyBytes);
    if (!budget.tryTake(bytes)) {
      // The body is left unread: the connection closes after the answer.
      throw new HookError('SERVER_BUSY', 'too many request bodies in flight; retry shortly', { retryAfterSeconds: RETRY_AFTER_SECONDS, closeConnection: true });
    }
    let rest: Promise<unknown>;
    try {
      rest = next();
    } catch (error) {
      budget.give(bytes);
      throw error;
    }
    return rest.then(
      () => budget.give(bytes),
      (error: unknown) => {
        budget.give(bytes);
        throw error;
      },
    );
  };
}
