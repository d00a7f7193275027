import { HookError } from '../errors.js';
import { nearestName } from '../near-name.js';
import type { ActionOrigin } from './types.js';

/** Which targets exist (`targets.<name>`) and what they take; `agents.defaults.forward`. */
export interface TargetPolicy {
  defaultForward?: string | undefined;
  /** Targets that take forwarded actions. */
  forwards: ReadonlySet<string>;
  /** Targets that take run-finished documents. */
  callbacks: ReadonlySet<string>;
  /** Of the `forwards`, the relay targets: their actions wait in the store for a consumer (docs/relay.md). */
  relays?: ReadonlySet<string>;
}

/** What the receiver of a handed-over action learns of the request (the document's `origin`). */
export interface ReceivedFacts {
  /** The signature scheme, or `token`. */
  scheme: string;
  verified: boolean;
  deliveryId?: string | undefined;
  /** ISO 8601. */
  receivedAt: string;
}

/** `forward` and `callback` as a mapping, a preset, a transform or a request chose them. */
export interface HandoffChoice {
  forward?: string | undefined;
  callback?: string | undefined;
  received?: ReceivedFacts | undefined;
}

export const NO_TARGETS: TargetPolicy = { forwards: new Set(), callbacks: new Set() };

/** The handoff fields an action gets: its target, its callback, whether its text is untrusted, and its origin's facts. */
export function handoffFields(
  choice: HandoffChoice | undefined,
  policy: TargetPolicy,
  base: { origin: ActionOrigin; untrusted: boolean; forwardable: boolean },
): { forward?: string; callback?: string; untrusted?: true; relay?: true; origin: ActionOrigin } {
  const forward = base.forwardable ? (choice?.forward ?? policy.defaultForward) : undefined;
  const callback = choice?.callback;
  if (forward !== undefined) checkTarget(forward, policy.forwards, 'forward', base.origin);
  if (callback !== undefined) checkTarget(callback, policy.callbacks, 'callback', base.origin);
  if (forward === undefined && callback === undefined) return { origin: base.origin };
  const origin = choice?.received === undefined ? base.origin : { ...base.origin, ...receivedOrigin(choice.received) };
  return {
    origin,
    ...(forward === undefined ? {} : { forward }),
    ...(callback === undefined ? {} : { callback }),
    ...(forward !== undefined && base.untrusted ? { untrusted: true as const } : {}),
    ...(forward !== undefined && policy.relays?.has(forward) === true ? { relay: true as const } : {}),
  };
}

function receivedOrigin(facts: ReceivedFacts): Partial<ActionOrigin> {
  return { scheme: facts.scheme, verified: facts.verified, receivedAt: facts.receivedAt, ...(facts.deliveryId === undefined ? {} : { deliveryId: facts.deliveryId }) };
}

/** A target chosen at request time (a transform's `forward`) that is not configured: the mapping fails, naming it. */
function checkTarget(name: string, known: ReadonlySet<string>, field: 'forward' | 'callback', origin: ActionOrigin): void {
  if (known.has(name)) return;
  const near = nearestName(name, known);
  const what = field === 'forward' ? 'takes forwarded actions' : 'takes callbacks';
  const hint = near === undefined ? '' : `; did you mean "${near}"?`;
  throw new HookError('MAPPING_INVALID', `hook mapping "${origin.mappingId ?? origin.hook}": ${field} target "${name.slice(0, 60)}" is not a configured target that ${what}${hint}`);
}

/** Where an action came from, as a receiver sees it (`origin` of both documents); absent facts are null so the shape never changes. */
export interface DocumentOrigin {
  mappingId: string | null;
  /** The hook path the request was posted to (`github`, `agent`, `wake`). */
  path: string;
  /** Its signature scheme (`github`, `stripe`, …), or `token` for a hook-token request. */
  scheme: string;
  /** Whether the sender's signature was checked over the raw body. */
  verified: boolean;
  deliveryId: string | null;
  /** ISO 8601. */
  receivedAt: string | null;
}

export function documentOrigin(origin: ActionOrigin): DocumentOrigin {
  return {
    mappingId: origin.mappingId ?? null,
    path: origin.hook,
    scheme: origin.scheme ?? 'token',
    verified: origin.verified === true,
    deliveryId: origin.deliveryId ?? null,
    receivedAt: origin.receivedAt ?? null,
  };
}
