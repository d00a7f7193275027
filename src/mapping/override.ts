import { Compile } from 'typebox/compile';
import { HookError } from '../errors.js';
import { TransformOverrideSchema } from '../sandbox/override-schema.js';
import type { TransformOverride } from './transform-port.js';

// The sandbox already checks what a transform returns; this is the engine's own guard with the
// same schema, because an override flows straight into a stored action (and the engine also
// accepts ports other than the sandbox, e.g. in tests).
const checker = Compile(TransformOverrideSchema);

export function checkOverride(value: unknown, mappingId: string): TransformOverride {
  if (checker.Check(value)) return value as TransformOverride;
  const first = checker.Errors(value)[0];
  const detail = first === undefined ? 'invalid' : `${first.instancePath || '/'} ${first.message}`;
  throw new HookError('TRANSFORM_FAILED', 'hook mapping failed', {
    cause: new Error(`transform of mapping "${mappingId}" returned an invalid override: ${detail}`),
  });
}
