import { HookError } from '../errors.js';
import { checkOverrideValue } from '../sandbox/override-schema.js';
import type { TransformOverride } from './transform-port.js';

// The sandbox already checks what a transform returns; this is the engine's own guard with the
// same rules, because an override flows straight into a stored action (and the engine also
// accepts ports other than the sandbox, e.g. in tests). The caller sees only `hook mapping
// failed`; the reason (the field and why) is the error's cause, shown by `hookgate try`.
export function checkOverride(value: unknown, mappingId: string): { value: TransformOverride; ignored: string[] } {
  const checked = checkOverrideValue(value);
  if (checked.ok) return { value: checked.value, ignored: checked.ignored ?? [] };
  throw new HookError('TRANSFORM_FAILED', 'hook mapping failed', {
    cause: new Error(`transform of mapping "${mappingId}" returned an ${checked.reason}`),
  });
}
