import type { AdmittedAction } from '../actions/types.js';
import type { PendingRateLimit, RateLimitSkip } from '../admission/rate-limit.js';
import type { CompiledSignature } from '../auth/signatures/index.js';
import type { DebouncePlan } from './apply-mapping.js';
import type { VerifiedSignature } from './transform-port.js';

/** A request as the mapping engine takes it (from the HTTP layer or a source). */
export interface HookRequest {
  /** Sub-path after `{hooks.path}/`, slashes trimmed. */
  name: string;
  payload: Record<string, unknown>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** Set by the HTTP layer once the routed mapping's signature verified; transforms see it as `input.signature`. */
  signature?: VerifiedSignature;
  /**
   * Whether the request is authenticated for a candidate mapping (its signature verifies for it,
   * or it takes the token the request carried), asked of every candidate, the first included:
   * resolution starts at the first one it is authenticated for and never runs another. Without it
   * the first candidate runs (a signed one only with `signature` set) and later ones only when
   * they take the token.
   */
  authenticatedFor?: (mapping: RoutedMapping) => Promise<boolean>;
}

/** The mapping a request would run, as the HTTP layer needs it to authenticate the request first. */
export interface RoutedMapping {
  id: string;
  signature: CompiledSignature | undefined;
}

export type MappingOutcome =
  /** `rateLimit`: the mapping's, to be counted in the acceptance's transaction (the store decides). */
  | { kind: 'actions'; mappingId: string; actions: AdmittedAction[]; debounce?: DebouncePlan; rateLimit?: PendingRateLimit }
  | { kind: 'skip'; mappingId: string; reason: 'transform-null' | 'empty-fan-out' }
  /** Every matching mapping passed the delivery over: the first one's reason. */
  | { kind: 'skip'; mappingId: string; reason: 'event' | 'filter'; event: string | undefined }
  /** The delivery is a message this service posted itself (the mapping's `ownMessages`). */
  | { kind: 'skip'; mappingId: string; reason: 'self'; event: string | undefined }
  | RateLimitSkip
  | { kind: 'no-match' };
