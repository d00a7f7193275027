import Type, { type Static } from 'typebox';
import type { EnvelopeMeta } from '../envelope/envelope.js';

/** When the main session should look at new work. */
export const WakeModeSchema = Type.Union([Type.Literal('now'), Type.Literal('next-heartbeat')], {
  description: '`now` triggers a heartbeat at once; `next-heartbeat` waits for the next periodic one.',
});
export type WakeMode = Static<typeof WakeModeSchema>;

/** Where an action came from: shown in logs, summaries and `hookgate status`. */
const ActionOriginSchema = Type.Object(
  {
    hook: Type.String({ description: 'The hook name the request was posted to (`wake`, `agent` or a mapped name).' }),
    mappingId: Type.Optional(Type.String({ description: 'Id of the mapping that produced the action.' })),
    // Set on actions handed to a target or followed by a callback (docs/forward.md): what the receiver learns of the request.
    scheme: Type.Optional(Type.String({ description: 'How the request was authenticated: its signature scheme, else `token`.' })),
    verified: Type.Optional(Type.Boolean({ description: "Whether the sender's signature was checked over the raw body." })),
    deliveryId: Type.Optional(Type.String({ description: "The sender's delivery id (a signed request's), when it has one." })),
    receivedAt: Type.Optional(Type.String({ description: 'When the request was received (ISO 8601).' })),
  },
  { additionalProperties: false },
);
export type ActionOrigin = Static<typeof ActionOriginSchema>;

/**
 * Where an action goes instead of this service's runtime, and who hears when its run ends
 * (docs/forward.md). A forwarded action is a run (kind `forward` in the store, `relay` when its
 * target is a relay), a wake included.
 */
const HandoffFields = {
  forward: Type.Optional(Type.String({ minLength: 1, description: 'The target (`targets.<name>`) the action is handed to; absent: it runs here.' })),
  callback: Type.Optional(Type.String({ minLength: 1, description: 'The target told when the run ends (`hookgate.run.finished.v1`).' })),
  untrusted: Type.Optional(Type.Literal(true, { description: 'Set on a forwarded action whose text came from a payload.' })),
  relay: Type.Optional(Type.Literal(true, { description: 'Set when `forward` names a relay target: the action waits in the store for a consumer to pull it (docs/relay.md).' })),
};

/** A system event for the main session. `text` is what the agent will read (enveloped when untrusted). */
export const WakeActionSchema = Type.Object(
  {
    kind: Type.Literal('wake'),
    /** Only on a forwarded wake, which is a run; a wake that stays here is an event. */
    runId: Type.Optional(Type.String()),
    text: Type.String({ minLength: 1 }),
    mode: WakeModeSchema,
    origin: ActionOriginSchema,
    ...HandoffFields,
  },
  { additionalProperties: false },
);
export type WakeAction = Static<typeof WakeActionSchema>;

/** An isolated agent turn. `message` is what the agent will read (enveloped unless a mapping opted out). */
export const AgentActionSchema = Type.Object(
  {
    kind: Type.Literal('agent'),
    runId: Type.String({ description: 'uuid given at admission; answers GET {path}/runs/<runId>.' }),
    message: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1, description: 'Prefix of the summary posted into the main session.' }),
    sessionKey: Type.String({ minLength: 1 }),
    wakeMode: WakeModeSchema,
    deliver: Type.Boolean(),
    channel: Type.String({ minLength: 1 }),
    to: Type.Optional(Type.String({ minLength: 1 })),
    undeliverable: Type.Optional(
      Type.String({ minLength: 1, description: 'Why the reply is not delivered, known at admission (the mapping\'s `noRecipient: "skip"` and no recipient): the run\'s delivery is recorded skipped with it.' }),
    ),
    model: Type.Optional(Type.String({ minLength: 1 })),
    thinking: Type.Optional(Type.String({ minLength: 1 })),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    origin: ActionOriginSchema,
    limitKeys: Type.Optional(
      Type.Object(
        { throttle: Type.Optional(Type.String()), concurrency: Type.Optional(Type.String()) },
        { additionalProperties: false, description: "The mapping's throttle and concurrency keys, rendered from the delivery at admission (docs/run-limits.md)." },
      ),
    ),
    ...HandoffFields,
  },
  { additionalProperties: false },
);
export type AgentAction = Static<typeof AgentActionSchema>;

/**
 * Text sent straight to a channel: no model, no session, no summary, no heartbeat. `text` is
 * sender data for people, so it gets no envelope; the channel neutralises it (src/channels/markup.ts).
 */
const NotifyActionSchema = Type.Object(
  {
    kind: Type.Literal('notify'),
    runId: Type.String({ description: 'uuid given at admission; answers GET {path}/runs/<runId>.' }),
    text: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1, description: 'Shown in the run list and the delivery summary.' }),
    channel: Type.String({ minLength: 1 }),
    to: Type.Optional(Type.String({ minLength: 1 })),
    origin: ActionOriginSchema,
    callback: HandoffFields.callback,
  },
  { additionalProperties: false },
);
export type NotifyAction = Static<typeof NotifyActionSchema>;

export type Action = WakeAction | AgentAction | NotifyAction;

/**
 * An action as the builder admits it. With `envelope` set, its `text` (wake) or `message` (agent)
 * is still the raw untrusted content: the store seals it (src/actions/seal.ts: the envelope, the
 * suspicious-pattern scan) on its writer thread before the row is written, which keeps that
 * per-byte work off the event loop. Without `envelope` it is already final (trusted content).
 */
/** The run an action becomes (agent, notify, any forwarded action); undefined for a wake that is a main-session event. */
export function runIdOf(action: Action | AdmittedAction): string | undefined {
  if (action.kind !== 'wake') return action.runId;
  return action.forward === undefined ? undefined : action.runId;
}

export type AdmittedAction = ((WakeAction | AgentAction) & { envelope?: EnvelopeMeta }) | NotifyAction;
export type AdmittedWakeAction = WakeAction & { envelope?: EnvelopeMeta };
export type AdmittedAgentAction = AgentAction & { envelope?: EnvelopeMeta };

/** The success body of a request, stored with its idempotency key so a retry gets it again. */
export type AcceptedResponse =
  | { status: 200; body: { ok: true; mode: WakeMode; debounced?: true } | { ok: true; mode: WakeMode; count: number; debounced?: true } | { ok: true; runId: string } | { ok: true; runIds: string[] } }
  | { status: 202; body: { ok: true; runId: string; debounced?: true } | { ok: true; runIds: string[]; debounced?: true } }
  /** Every matching mapping passed the delivery over (`events`, `filter`), its rate limit skipped it, or it is the service's own message: no action. */
  | { status: 200; body: { ok: true; skipped: 'event'; event?: string } | { ok: true; skipped: 'filter' } | { ok: true; skipped: 'rate-limit' } | { ok: true; skipped: 'self' } }
  | { status: 204; body: null };
