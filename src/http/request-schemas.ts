import Type, { type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { HookError } from '../errors.js';
import { WakeModeSchema } from '../actions/types.js';
import { collapseLiteralUnions } from '../schema-errors.js';

const IdempotencyKeyField = Type.Optional(Type.String({ description: "OpenClaw's body form of the Idempotency-Key header (the header wins)." }));

/** POST {hooks.path}/wake. Unknown fields are ignored; OpenClaw's routing fields are refused (openclaw-fields.ts). */
export const WakeRequestSchema = Type.Object({
  text: Type.String({ description: 'Description of the event.' }),
  mode: Type.Optional(WakeModeSchema),
  idempotencyKey: IdempotencyKeyField,
});

/** POST {hooks.path}/agent. Unknown fields are ignored; OpenClaw's `accountId` is refused (openclaw-fields.ts). */
export const AgentRequestSchema = Type.Object({
  message: Type.String({ description: 'Prompt or message for the agent.' }),
  name: Type.Optional(Type.String({ maxLength: 200, description: 'Hook name, prefix of the summary.' })),
  sessionKey: Type.Optional(Type.String({ maxLength: 500, description: 'Agent session; default hook:<uuid>.' })),
  wakeMode: Type.Optional(WakeModeSchema),
  deliver: Type.Optional(Type.Boolean({ description: 'Send the reply to the channel; default true.' })),
  channel: Type.Optional(Type.String({ maxLength: 64, description: 'Delivery channel; default last.' })),
  to: Type.Optional(Type.String({ maxLength: 500, description: 'Recipient on the channel.' })),
  model: Type.Optional(Type.String({ maxLength: 200, description: 'Model override (alias or provider/model).' })),
  thinking: Type.Optional(Type.String({ maxLength: 64, description: 'Thinking-level override.' })),
  timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: 'Run time limit, seconds.' })),
  agentId: Type.Optional(Type.String({ maxLength: 200, description: 'OpenClaw agent routing; only `main` (within hooks.allowedAgentIds).' })),
  idempotencyKey: IdempotencyKeyField,
  sessionMode: Type.Optional(
    Type.Union([Type.Literal('isolated'), Type.Literal('persistent')], { description: '`persistent` continues the session named by `sessionKey`, which it requires.' }),
  ),
  waitForCompletion: Type.Optional(Type.Boolean({ description: 'OpenClaw: hold the answer until the run ends (at most its timeout and hooks.maxWaitSeconds): 200 with `completion: {status, reply}`; past the bound, 202.' })),
});

/** A validator that turns the first schema error into a 400 naming the field (an enum lists its values). */
export function requestValidator<S extends TSchema>(schema: S, required: readonly string[]) {
  const compiled = Compile(schema);
  return (body: Record<string, unknown>): Static<S> => {
    if (compiled.Check(body)) return body as Static<S>;
    for (const field of required) {
      if (typeof body[field] !== 'string') throw new HookError('INVALID_BODY', `${field} required`);
    }
    const first = collapseLiteralUnions(compiled.Errors(body))[0];
    const field = first?.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
    throw new HookError('INVALID_BODY', `${field} ${first?.message ?? 'is invalid'}`);
  };
}
