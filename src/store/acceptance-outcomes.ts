import { HookError } from '../errors.js';
import type { AdmittedAction, AcceptedResponse } from '../actions/types.js';
import type { Logger } from '../log.js';
import type { Acceptance, AcceptOutcome } from './port.js';

/**
 * How an adapter answers the callers of one committed batch, whatever database committed it: the
 * same outcomes, the same errors, the same logs and the same listener calls on SQLite and PostgreSQL.
 */

export type ItemOutcome =
  /**
   * `suspicious`: per action, the pattern families its untrusted content matched (names only);
   * `invisible`: per action, the invisible code points removed from it.
   */
  | { kind: 'committed'; suspicious: string[][]; invisible?: number[] }
  | { kind: 'replayed'; responseJson: string }
  | { kind: 'conflict' }
  /** Its rate hit did not conform: nothing of it was written, its key not taken. */
  | { kind: 'rate-limited'; retryAfterMs: number }
  /** Its actions could not be sealed: nothing of it was written, the rest of the batch goes on. */
  | { kind: 'unsealable'; message: string };

/** An acceptance waiting in a batch with its caller's promise. */
export interface PendingAcceptance {
  acceptance: Acceptance;
  resolve: (outcome: AcceptOutcome) => void;
  reject: (error: unknown) => void;
}

export interface SettleDeps {
  logger: Logger;
  listeners: Iterable<(actions: readonly AdmittedAction[]) => void>;
}

/** Answers each caller by its own outcome, then tells the listeners what became durable. */
export function settleAcceptances(batch: readonly PendingAcceptance[], outcomes: readonly ItemOutcome[], deps: SettleDeps): void {
  const committed: AdmittedAction[] = [];
  batch.forEach((item, index) => {
    const outcome = outcomes[index];
    if (outcome === undefined) return item.reject(unavailable('the store answered for fewer acceptances than it was sent'));
    if (outcome.kind === 'conflict') return item.reject(idempotencyConflict());
    if (outcome.kind === 'rate-limited') return item.resolve(outcome);
    if (outcome.kind === 'replayed') return item.resolve({ kind: 'replayed', response: JSON.parse(outcome.responseJson) as AcceptedResponse });
    if (outcome.kind === 'unsealable') {
      deps.logger.error({ event: 'store.seal_failed', err: outcome.message }, 'an accepted action could not be sealed; nothing of it was stored');
      return item.reject(new HookError('INTERNAL', 'the request could not be stored'));
    }
    reportSuspicious(item.acceptance.actions, outcome, deps.logger);
    committed.push(...item.acceptance.actions);
    item.resolve({ kind: 'committed', response: item.acceptance.response });
  });
  if (committed.length > 0) for (const listener of deps.listeners) safeCall(listener, committed, deps.logger);
}

export function idempotencyConflict(): HookError {
  return new HookError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key was already used for a different request');
}

function unavailable(reason: string): HookError {
  return new HookError('STORE_UNAVAILABLE', 'the store cannot accept requests right now, retry later', { retryAfterSeconds: 5, cause: new Error(reason) });
}

/** The injection heuristics' findings (src/envelope/suspicious.ts): counts and names, never the content. */
function reportSuspicious(actions: readonly AdmittedAction[], outcome: { suspicious: string[][]; invisible?: number[] }, logger: Logger): void {
  outcome.suspicious.forEach((patterns, index) => {
    const origin = actions[index]?.origin;
    if (patterns.length === 0 || origin === undefined) return;
    const invisible = outcome.invisible?.[index] ?? 0;
    logger.warn(
      { event: 'hook.suspicious_content', hook: origin.hook, mappingId: origin.mappingId, count: patterns.length, patterns, invisible },
      'untrusted content looks like a prompt-injection attempt (wrapped as usual)',
    );
  });
}

function safeCall(listener: (actions: readonly AdmittedAction[]) => void, actions: readonly AdmittedAction[], logger: Logger): void {
  try {
    listener(actions);
  } catch (error) {
    logger.error({ event: 'store.listener_failed', err: (error as Error).message }, 'commit listener failed');
  }
}
