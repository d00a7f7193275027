import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { AgentActionSchema, WakeActionSchema, type ActionOrigin } from '../actions/types.js';
import type { DocumentOrigin } from '../actions/handoff.js';
import { ACTION_DOCUMENT_TYPE } from './document.js';
import type { ForwardedAction } from './types.js';

const Origin = Type.Object({
  mappingId: Type.Union([Type.String(), Type.Null()]),
  path: Type.String({ minLength: 1 }),
  scheme: Type.String({ minLength: 1 }),
  verified: Type.Boolean(),
  deliveryId: Type.Union([Type.String(), Type.Null()]),
  receivedAt: Type.Union([Type.String(), Type.Null()]),
});
const Common = { type: Type.Literal(ACTION_DOCUMENT_TYPE), id: Type.String({ minLength: 1 }), origin: Origin, untrusted: Type.Boolean() };
// The action's own fields, as the action schemas define them: the document carries them unchanged.
const { message, name, sessionKey, wakeMode, deliver, channel, to, model, thinking, timeoutSeconds } = AgentActionSchema.properties;
const { text, mode } = WakeActionSchema.properties;

/** `hookgate.action.v1` as a receiver may rely on it (src/forward/document.ts writes it). */
export const ActionDocumentSchema = Type.Union([
  Type.Object({ ...Common, kind: Type.Literal('wake'), text, mode }),
  Type.Object({ ...Common, kind: Type.Literal('agent'), message, name, sessionKey, wakeMode, deliver, channel, to, model, thinking, timeoutSeconds }),
]);
const validator = Compile(ActionDocumentSchema);

/**
 * The action an action document carries, to hand to another target (a relay's consumer passing an
 * event on to its local gateway: the same id, so that gateway dedupes on it too). Undefined when
 * the value is not a `hookgate.action.v1` document. `actionDocument(id, action)` gives it back.
 */
export function actionFromDocument(value: unknown, target: string): { id: string; action: ForwardedAction } | undefined {
  if (!validator.Check(value)) return undefined;
  const { type: _type, id, origin, untrusted, ...fields } = value;
  const action = { ...fields, origin: actionOrigin(origin), forward: target, ...(untrusted ? { untrusted: true as const } : {}) } as ForwardedAction;
  return { id, action };
}

function actionOrigin(origin: DocumentOrigin): ActionOrigin {
  return {
    hook: origin.path,
    ...(origin.mappingId === null ? {} : { mappingId: origin.mappingId }),
    scheme: origin.scheme,
    verified: origin.verified,
    ...(origin.deliveryId === null ? {} : { deliveryId: origin.deliveryId }),
    ...(origin.receivedAt === null ? {} : { receivedAt: origin.receivedAt }),
  };
}
