import type { Config } from '../config/schema.js';
import { PRESETS, type PresetDefinition } from '../../presets/index.js';

/**
 * The body limit of each hook name: hooks.maxBodyBytes everywhere, except the paths of enabled
 * presets that declare a larger allowance (the gmail preset's path, as OpenClaw). A name's limit
 * is known from the URL alone, so the 413 still comes before the body is read.
 */
export function bodyLimitsFor(hooks: Config['hooks'], presets: readonly PresetDefinition[] = PRESETS): (name: string) => number {
  const byPath = new Map<string, number>();
  for (const preset of presets) {
    if (!hooks.presets.includes(preset.name) || preset.bodyAllowance === undefined) continue;
    const { path, maxBodyBytes } = preset.bodyAllowance(hooks);
    byPath.set(path, Math.max(hooks.maxBodyBytes, maxBodyBytes));
  }
  return (name) => byPath.get(name) ?? hooks.maxBodyBytes;
}
