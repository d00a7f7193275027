import { HookError } from '../../errors.js';

type Refusal = { kind: 'replayed'; responseJson: string } | { kind: 'conflict' } | { kind: 'rate-limited'; retryAfterMs: number };

/**
 * Thrown inside a debounce join's transaction to roll it back when its key was already used or
 * its rate hit was refused; a HookError so the transaction helper passes it through instead of
 * reading it as the database failing. The join turns it into its outcome; its code is what the
 * refusal would mean to a caller: the key's first use decides (409), or the rate limit (429).
 */
export class JoinRefused extends HookError {
  readonly outcome: Refusal;
  constructor(outcome: Refusal) {
    if (outcome.kind === 'rate-limited') super('RATE_LIMITED', 'the mapping\'s rate limit refused the delivery', { retryAfterSeconds: Math.ceil(outcome.retryAfterMs / 1000) });
    else super('IDEMPOTENCY_CONFLICT', outcome.kind === 'replayed' ? 'the delivery\'s key was used before (replayed)' : 'the delivery\'s key was used before for another request');
    this.outcome = outcome;
  }
}
