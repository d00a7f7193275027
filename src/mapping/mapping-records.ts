import type { Config } from '../config/schema.js';
import type { MappingConfig } from '../config/mapping-schema.js';
import type { ConfigIssue } from '../errors.js';
import type { PresetDefinition } from '../../presets/define.js';
import { presetEntries, type PresetEntry } from '../config/preset-schema.js';
import { nearestName } from '../near-name.js';
import { compileFilter } from '../admission/filter-compile.js';

/** One mapping record with where it came from, before compilation. */
export interface MappingSource {
  config: MappingConfig;
  id: string;
  /** Config pointer used in error messages, e.g. `/hooks/mappings/2` or `/hooks/presets/0`. */
  pointer: string;
  /** Human label for `hookgate try`, e.g. `hooks.mappings[2]` or `preset gmail`. */
  label: string;
  /** How its configuration problems name it; default `mapping "<id>"`. A preset's mappings say `preset "<name>"`, once for all of them. */
  subject?: string;
  /**
   * Set on a preset's mappings: what their rate limit, throttle, concurrency and budget are
   * counted under, together (`preset:github`); a mapping of the user's counts under its own id.
   */
  limitOwner?: string;
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
  presetEntries(hooks.presets).forEach((written, index) => {
    const pointer = `/hooks/presets/${index}`;
    // Every preset takes `forward` and `callback` (docs/forward.md): they go onto each of its mappings as they are.
    const { forward, callback, ...entry } = written;
    const handoff = { ...(forward === undefined ? {} : { forward }), ...(callback === undefined ? {} : { callback }) };
    const { name } = entry;
    const preset = known.get(name);
    const path = entry.path ?? name;
    if (preset === undefined) {
      issues.push({ path: pointer, message: unknownPresetMessage(name, [...known.keys()]) });
    } else if (seen.has(path)) {
      const hint = preset.options?.includes('path') === true ? ` on path "${path}" (give one a different path)` : '';
      issues.push({ path: pointer, message: `preset "${name}" is listed twice${hint}` });
    } else {
      seen.add(path);
      const problems = presetProblems(preset, entry);
      for (const problem of problems) issues.push({ path: `${pointer}/${problem.field}`, message: `preset "${name}": ${problem.message}` });
      if (problems.length > 0) return;
      const configs = preset.mappings(hooks, entry);
      const base = entry.path === undefined || entry.path === name ? `preset:${name}` : `preset:${name}:${entry.path}`;
      configs.forEach((config, k) => {
        const id = config.id ?? (configs.length === 1 ? base : `${base}-${k}`);
        sources.push({ config: { ...config, ...handoff }, id, pointer, label: `preset ${name}`, subject: `preset "${name}"`, limitOwner: base });
      });
    }
  });
  for (const source of sources) issues.push(...bodyLimitIssues(source, hooks.bodyBudgetBytes));
  const ids = new Map<string, string>();
  for (const source of sources) {
    const first = ids.get(source.id);
    if (first !== undefined) issues.push({ path: `${source.pointer}/id`, message: `mapping id "${source.id}" is already used by ${first}` });
    else ids.set(source.id, source.label);
  }
  return { sources, issues };
}

/** `unknown preset "githb"; did you mean "github"? (known: …)`: the hint only when a known name is near. */
export function unknownPresetMessage(name: string, known: readonly string[]): string {
  const near = nearestName(name, known);
  return `unknown preset "${name}"${near === undefined ? '' : `; did you mean "${near}"?`} (known: ${known.join(', ') || 'none'})`;
}

/**
 * Options the preset does not read, a missing credential, the preset's own checks, then the
 * entry's filter on its own: its mistakes are said once, at the entry's `filter`, not once per
 * mapping inside the filter the preset merges it into.
 */
function presetProblems(preset: PresetDefinition, entry: PresetEntry): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  const options = preset.options ?? [];
  const allowed = new Set(['name', ...options]);
  for (const key of Object.keys(entry)) {
    if (!allowed.has(key)) problems.push({ field: key, message: `option "${key}" does not apply (it takes: ${options.join(', ') || 'no options'})` });
  }
  if (preset.scheme !== undefined && (entry.secret === undefined) === (entry.secrets === undefined)) {
    problems.push({ field: 'secret', message: `needs exactly one of secret or secrets (the ${preset.scheme} signing secret, e.g. "\${${preset.name.toUpperCase()}_WEBHOOK_SECRET}")` });
  }
  problems.push(...(preset.check?.(entry) ?? []));
  if (entry.filter !== undefined && allowed.has('filter')) problems.push(...compileFilter(entry.filter).problems);
  return problems;
}

/** A mapping's maxBodyBytes is the limit of its path, so it needs one, and fits in the shared body budget. */
function bodyLimitIssues(source: MappingSource, budget: number): ConfigIssue[] {
  const { maxBodyBytes, match } = source.config;
  if (maxBodyBytes === undefined) return [];
  const path = `${source.pointer}/maxBodyBytes`;
  if (match?.path === undefined) return [{ path, message: `mapping "${source.id}": maxBodyBytes needs match.path (the limit is chosen from the URL)` }];
  if (maxBodyBytes > budget) return [{ path, message: `mapping "${source.id}": maxBodyBytes ${maxBodyBytes} is over hooks.bodyBudgetBytes (${budget})` }];
  return [];
}
