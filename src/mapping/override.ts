import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { HookError } from '../errors.js';
import { WakeModeSchema } from '../actions/types.js';
import type { TransformOverride } from './transform-port.js';

/**
 * The sandbox already checks what a transform returns; this is the engine's own guard, because
 * an override flows straight into a stored action. Unknown keys are refused so a typo
 * (`mesage`) fails loudly instead of silently falling back to the template.
 */
const OverrideSchema = Type.Object(
  {
    message: Type.Optional(Type.String()),
    text: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    sessionKey: Type.Optional(Type.String()),
    wakeMode: Type.Optional(WakeModeSchema),
    deliver: Type.Optional(Type.Boolean()),
    channel: Type.Optional(Type.String()),
    to: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    thinking: Type.Optional(Type.String()),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    action: Type.Optional(Type.Union([Type.Literal('wake'), Type.Literal('agent')])),
  },
  { additionalProperties: false },
);

const checker = Compile(OverrideSchema);

export function checkOverride(value: unknown, mappingId: string): TransformOverride {
  if (checker.Check(value)) return value as TransformOverride;
  const first = checker.Errors(value)[0];
  const detail = first === undefined ? 'invalid' : `${first.instancePath || '/'} ${first.message}`;
  throw new HookError('TRANSFORM_FAILED', 'hook mapping failed', {
    cause: new Error(`transform of mapping "${mappingId}" returned an invalid override: ${detail}`),
  });
}
