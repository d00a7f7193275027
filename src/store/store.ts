import type { AdmittedAction, AcceptedResponse } from '../actions/types.js';
import type { StorePragma } from './writer-protocol.js';

export type { StorePragma } from './writer-protocol.js';

/**
 * One accepted request: its actions and the response its caller gets, committed together. The
 * store seals the actions' untrusted content (src/actions/seal.ts) before it writes them.
 */
export interface Acceptance {
  actions: readonly AdmittedAction[];
  response: AcceptedResponse;
  idempotency?: { key: string; fingerprint: string };
}

export type AcceptOutcome =
  | { kind: 'committed'; response: AcceptedResponse }
  /** The key was used before for the same request: the first response again, nothing stored. */
  | { kind: 'replayed'; response: AcceptedResponse };

/** What the ingress needs from the store. */
export interface IngressStore {
  /** Commits durably before resolving; throws HookError STORE_UNAVAILABLE / SHUTTING_DOWN / IDEMPOTENCY_CONFLICT. */
  accept(acceptance: Acceptance): Promise<AcceptOutcome>;
  /** A stored first response for a key, if it is still kept (throws IDEMPOTENCY_CONFLICT on a fingerprint mismatch). */
  replay(key: string, fingerprint: string): AcceptedResponse | undefined;
  /** False while the last write probe of the writing connection failed, or the store is closed. */
  isWritable(): boolean;
  /**
   * Operator/test hook: sets `max_page_count` (a page number) or `query_only` (a boolean) on the
   * connection that commits acceptances, e.g. to simulate a full disk or a read-only store, and
   * probes writability again before resolving. No other pragma is accepted.
   */
  pragma(name: StorePragma, value: number | boolean): Promise<void>;
  /** Called after each commit with the actions it made durable, as admitted (the runtime wakes up on it). */
  onCommitted(listener: (actions: readonly AdmittedAction[]) => void): () => void;
  /** Commits what is queued, refuses new work, closes the file. */
  close(): Promise<void>;
}
