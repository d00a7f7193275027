import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { collapseLiteralUnions } from '../schema-errors.js';

/**
 * What a transform may return. `allowUnsafeExternalContent` is deliberately absent: opting out of
 * the envelope is a configuration decision, never something payload-driven code can make.
 */
export const TransformOverrideSchema = Type.Object(
  {
    action: Type.Optional(Type.Union([Type.Literal('wake'), Type.Literal('agent')])),
    text: Type.Optional(Type.String({ description: 'Wake event text.' })),
    message: Type.Optional(Type.String({ description: 'Agent message.' })),
    name: Type.Optional(Type.String()),
    sessionKey: Type.Optional(Type.String()),
    wakeMode: Type.Optional(Type.Union([Type.Literal('now'), Type.Literal('next-heartbeat')])),
    deliver: Type.Optional(Type.Boolean()),
    channel: Type.Optional(Type.String()),
    to: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    thinking: Type.Optional(Type.String()),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  { additionalProperties: false },
);
export type TransformOverride = Static<typeof TransformOverrideSchema>;

const validator = Compile(TransformOverrideSchema);

/** Parses the JSON a guest produced; returns the override or a one-line reason it is not one. */
export function parseOverride(json: string): { ok: true; value: TransformOverride } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'result is not valid JSON' };
  }
  if (validator.Check(value)) return { ok: true, value };
  const first = collapseLiteralUnions(validator.Errors(value))[0];
  const where = first?.instancePath ? ` at ${first.instancePath}` : '';
  return { ok: false, reason: `result is not a valid override${where}: ${first?.message ?? 'invalid'}` };
}
