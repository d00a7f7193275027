import { PRESETS } from '../../presets/index.js';
import type { PresetDefinition } from '../../presets/define.js';
import type { PresetEntry } from '../../src/config/preset-schema.js';
import type { AdmittedAction } from '../../src/actions/types.js';
import { promptOf } from '../../src/mapping/explain-format.js';
import type { HookRequest } from '../../src/mapping/engine.js';
import { engineWith, request } from '../mapping/support.js';

export const PRESET_SECRET = 'preset-test-secret-0123456789';

export function presetNamed(name: string): PresetDefinition {
  const preset = PRESETS.find((candidate) => candidate.name === name);
  if (preset === undefined) throw new Error(`no preset ${name}`);
  return preset;
}

/** The `hooks.presets` entry enabling `name` with a test credential (a name alone for unsigned presets). */
export function presetEntry(name: string, options: Omit<PresetEntry, 'name'> = {}): string | PresetEntry {
  const preset = presetNamed(name);
  if (preset.scheme === undefined && Object.keys(options).length === 0) return name;
  return { name, ...(preset.scheme === undefined ? {} : { secret: PRESET_SECRET }), ...options };
}

/** A mapping engine with one preset enabled, as the service builds it. */
export function presetEngine(name: string, options: Omit<PresetEntry, 'name'> = {}) {
  return engineWith({ presets: PRESETS, hooks: { presets: [presetEntry(name, options)] } });
}

/**
 * A delivery as the HTTP layer hands it to the engine once the preset's signature verified: the
 * same signature verifies for every mapping of the preset, so fall-through may try each.
 */
export function verifiedRequest(name: string, payload: Record<string, unknown>, headers: Record<string, string> = {}, path = name): HookRequest {
  const scheme = presetNamed(name).scheme;
  if (scheme === undefined) return request(path, payload, { headers });
  return request(path, payload, { headers, signature: { scheme, id: null, timestamp: null }, authenticatedFor: () => Promise.resolve(true) });
}

/** The message (agent) or text (wake) the action carries, before the envelope wraps it. */
export function textOf(action: AdmittedAction): string {
  return promptOf(action);
}

/**
 * What a rendered message must never hold: a missing value printed, an object printed, template
 * syntax, a label with nothing after it ("Order  by :"), doubled spaces, quotes around nothing.
 */
export function placeholderProblems(text: string): string[] {
  const checks: Array<[RegExp, string]> = [
    [/undefined/, 'undefined'],
    [/\[object Object\]/, '[object Object]'],
    [/\{\{|\}\}/, 'template syntax'],
    [/[^\s]  +[^\s]/, 'doubled space'],
    [/:[ \t]*$/m, 'empty label at a line end'],
    [/ :/, 'space before a colon'],
    [/""|\(\)|<@>/, 'empty quotes, parentheses or mention'],
    [/^[ \t]+\S/m, 'line starting with a space'],
    [/\S[ \t]+$/m, 'line ending with a space'],
    [/^\s*[{[]"/m, 'raw JSON'],
    [/^[^\n]*\n[ \t]*\n/, 'blank second line'],
  ];
  return checks.filter(([pattern]) => pattern.test(text)).map(([, label]) => label);
}
