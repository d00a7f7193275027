import type { Config } from '../config/schema.js';
import type { MappingConfig } from '../config/mapping-schema.js';
import type { ConfigIssue } from '../errors.js';
import type { PresetDefinition } from '../../presets/define.js';

/** One mapping record with where it came from, before compilation. */
export interface MappingSource {
  config: MappingConfig;
  id: string;
  /** Config pointer used in error messages, e.g. `/hooks/mappings/2` or `/hooks/presets/0`. */
  pointer: string;
  /** Human label for `hookgate try`, e.g. `hooks.mappings[2]` or `preset gmail`. */
  label: string;
}

/**
 * The global order: `hooks.mappings` as written, then each preset of `hooks.presets` in order.
 * Ids default to `mapping-<index>`; preset mappings default to `preset:<name>[-<k>]`.
 */
export function collectMappingSources(
  hooks: Config['hooks'],
  presets: readonly PresetDefinition[],
): { sources: MappingSource[]; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const sources: MappingSource[] = hooks.mappings.map((config, index) => ({
    config,
    id: config.id ?? `mapping-${index}`,
    pointer: `/hooks/mappings/${index}`,
    label: `hooks.mappings[${index}]`,
  }));
  const known = new Map(presets.map((preset) => [preset.name, preset]));
  const seen = new Set<string>();
  hooks.presets.forEach((name, index) => {
    const pointer = `/hooks/presets/${index}`;
    const preset = known.get(name);
    if (preset === undefined) {
      issues.push({ path: pointer, message: `unknown preset "${name}" (known: ${[...known.keys()].join(', ') || 'none'})` });
    } else if (seen.has(name)) {
      issues.push({ path: pointer, message: `preset "${name}" is listed twice` });
    } else {
      seen.add(name);
      const configs = preset.mappings(hooks);
      configs.forEach((config, k) => {
        const id = config.id ?? (configs.length === 1 ? `preset:${name}` : `preset:${name}-${k}`);
        sources.push({ config, id, pointer, label: `preset ${name}` });
      });
    }
  });
  const ids = new Map<string, string>();
  for (const source of sources) {
    const first = ids.get(source.id);
    if (first !== undefined) issues.push({ path: `${source.pointer}/id`, message: `mapping id "${source.id}" is already used by ${first}` });
    else ids.set(source.id, source.label);
  }
  return { sources, issues };
}
