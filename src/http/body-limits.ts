import type { Config } from '../config/schema.js';
import { presetNames } from '../config/preset-schema.js';
import { collectMappingSources } from '../mapping/mapping-records.js';
import { PRESETS, type PresetDefinition } from '../../presets/index.js';

/**
 * The body limit of each hook name: hooks.maxBodyBytes everywhere, except the paths of mappings
 * (the user's or a preset's) that set `maxBodyBytes`, and of enabled presets that declare a larger
 * allowance (the gmail preset's path, as OpenClaw). A name's limit is known from the URL alone, so
 * the 413 still comes before the body is read; several mappings on one path: the largest.
 */
export function bodyLimitsFor(hooks: Config['hooks'], presets: readonly PresetDefinition[] = PRESETS): (name: string) => number {
  const byPath = new Map<string, number>();
  const raise = (path: string, bytes: number): void => {
    byPath.set(path, Math.max(byPath.get(path) ?? hooks.maxBodyBytes, bytes));
  };
  const enabled = presetNames(hooks.presets);
  for (const preset of presets) {
    if (!enabled.includes(preset.name) || preset.bodyAllowance === undefined) continue;
    const { path, maxBodyBytes } = preset.bodyAllowance(hooks);
    raise(path, maxBodyBytes);
  }
  for (const { config } of collectMappingSources(hooks, presets).sources) {
    const path = config.match?.path?.replace(/^\/+|\/+$/g, '');
    if (path !== undefined && path !== '' && config.maxBodyBytes !== undefined) raise(path, config.maxBodyBytes);
  }
  return (name) => byPath.get(name) ?? hooks.maxBodyBytes;
}
