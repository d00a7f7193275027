import { actionFromDocument } from '../../forward/document-read.js';
import type { TargetClient } from '../../forward/index.js';
import type { TargetAnswer } from '../../forward/types.js';
import { retryDelay } from '../../retry.js';
import type { WireEvent } from '../wire.js';

/** Waits between tries of a local target that cannot take an event now, capped (its Retry-After too). */
export const LOCAL_RETRY = { baseMs: 1000, maxMs: 30_000 } as const;
/** A try is not started this close to the lease's end: the event would go to another consumer meanwhile. */
const LEASE_MARGIN_MS = 2000;

/** What became of one event at the local target. */
export type LocalOutcome =
  | { kind: 'taken'; answer: Extract<TargetAnswer, { kind: 'accepted' }> }
  /** The target refused it for good (400, 401, 404, …), or it cannot be read: the edge ends it `error` with the reason. */
  | { kind: 'refused'; reason: string }
  /** The target could not take it before the lease runs out: not acknowledged, it is pulled again after `waitMs`. */
  | { kind: 'later'; reason: string; waitMs: number };

export interface HandoffDeps {
  target: TargetClient & { handOff: NonNullable<TargetClient['handOff']> };
  /** Tries so far per event id (kept across leases, so the backoff goes on where it was). */
  tries: Map<string, number>;
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The client is stopping: the POST in flight is cut (the event is handed out again after its lease). */
  signal: AbortSignal;
}

/**
 * Hands one event to the local target under the event's id (the idempotency key, `webhook-id` or
 * delivery id it dedupes on), trying again with backoff while its lease lasts. Rejects only when
 * `signal` aborted.
 */
export async function handToLocalTarget(event: WireEvent, deps: HandoffDeps): Promise<LocalOutcome> {
  const read = actionFromDocument(event.document, deps.target.name);
  if (read === undefined || read.id !== event.id) return { kind: 'refused', reason: 'the event is not a hookgate.action.v1 document this client reads (update hookgate on this side)' };
  const leaseEnds = Date.parse(event.leaseUntil);
  for (;;) {
    const tries = (deps.tries.get(event.id) ?? 0) + 1;
    deps.tries.set(event.id, tries);
    const answer = await deps.target.handOff({ id: event.id, action: read.action, signal: deps.signal });
    if (answer.kind === 'accepted') return { kind: 'taken', answer };
    const said = `local target "${deps.target.name}" ${answer.reason}`;
    if (answer.kind === 'refused') return { kind: 'refused', reason: said };
    const wait = retryDelay(tries, answer.retryAfterMs, LOCAL_RETRY);
    if (!(deps.now() + wait < leaseEnds - LEASE_MARGIN_MS)) return { kind: 'later', reason: said, waitMs: wait };
    await deps.sleep(wait, deps.signal);
    if (deps.signal.aborted) throw deps.signal.reason;
  }
}
