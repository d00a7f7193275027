import { randomUUID } from 'node:crypto';
import type { AcceptedResponse, AdmittedAction } from '../actions/types.js';
import type { DebouncePlan } from '../mapping/apply-mapping.js';
import type { AdmissionObserver } from '../metrics/admission.js';
import type { DebounceJoin, DebounceStore } from '../store/debounce-port.js';

/** What the hook handlers need for debounce and the admission metrics (none: debounce is refused at load). */
export interface AdmissionDeps {
  debounce: DebounceStore;
  /** A group opened or re-armed on this instance fires at `at`: the firer wakes by then. */
  nudge(at: number): void;
  observer?: AdmissionObserver;
  now?: () => number;
}

/** The skipped answer: a returned value, not an error (the sender did nothing wrong). */
export function skippedResponse(reason: 'event' | 'filter' | 'self', event: string | undefined): AcceptedResponse {
  if (reason === 'filter' || reason === 'self') return { status: 200, body: { ok: true, skipped: reason } };
  return { status: 200, body: event === undefined ? { ok: true, skipped: 'event' } : { ok: true, skipped: 'event', event } };
}

/**
 * The joins of a debounced outcome, or undefined when every key rendered empty (then the actions
 * are accepted at once, as without debounce). An empty key among others acts at once too: its
 * action gets a group of its own that is due immediately, so the request still commits in one
 * transaction.
 */
export function joinsFor(mappingId: string, actions: readonly AdmittedAction[], plan: DebouncePlan | undefined): DebounceJoin[] | undefined {
  if (plan === undefined || plan.keys.every((key) => key === '')) return undefined;
  return actions.map((action, index) => {
    const key = plan.keys[index] ?? '';
    const settings = { windowMs: plan.windowMs, maxWaitMs: plan.maxWaitMs, keep: plan.keep, maxChars: plan.maxChars, maxDeliveries: plan.maxDeliveries, maxBytes: plan.maxBytes };
    if (key !== '') return { mappingId, key, action, ...settings };
    // A leading space: rendered keys are trimmed, so none can be this one (and PostgreSQL text takes no NUL).
    return { mappingId, key: ` at-once:${randomUUID()}`, action, ...settings, windowMs: 0, maxWaitMs: 0 };
  });
}
