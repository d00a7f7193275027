import type { Config } from '../src/config/schema.js';
import type { MappingConfig } from '../src/config/mapping-schema.js';
import type { PresetEntry } from '../src/config/preset-schema.js';

/** What a preset's example must produce; checked by the preset contract test. */
export interface PresetExpectation {
  /** Number of actions the example payload yields (fan-out). */
  actions: number;
  kind: 'wake' | 'agent';
  /** Substrings the (enveloped) message or text of the first action must contain. */
  contains: readonly string[];
  /** Exact session key of the first agent action, when the preset templates one. */
  sessionKey?: string;
}

export interface PresetExample {
  /** The hook name the example is posted to (`POST {hooks.path}/<name>`). */
  name: string;
  payload: Record<string, unknown>;
  /** Headers the sender sends besides its signature (lower-case names), e.g. the event type. */
  headers?: Record<string, string>;
  expect: PresetExpectation;
}

/**
 * A built-in mapping set enabled by name in `hooks.presets`. `mappings` receives the hooks
 * section so a preset can honour its own settings (e.g. `hooks.gmail.model`); its mappings are
 * ordinary mapping records, checked and compiled like the user's.
 */
export interface PresetDefinition {
  name: string;
  summary: string;
  /** The signature scheme the sender signs with; such a preset needs `secret` or `secrets`. None: the hook token. */
  scheme?: string;
  /** The event types acted on when the entry names no `events` (listed by `hookgate presets`). */
  defaultEvents?: readonly string[];
  /** The entry options this preset reads besides `name` (listed by `hookgate presets`). */
  options?: readonly string[];
  /** The largest body the preset's path takes (its sender's documented maximum, within hooks.bodyBudgetBytes). */
  maxBodyBytes?: number;
  /** Its noise filters and default debounces, each with the event types it applies to and why (`hookgate presets`, docs/presets.md). */
  defaultsExplained?: ReadonlyArray<{ events: readonly string[]; rule: string; reason: string }>;
  /** Problems with an entry's options, found at start-up (`field` relative to the entry). */
  check?(entry: PresetEntry): Array<{ field: string; message: string }>;
  /** The preset's mapping records for one `hooks.presets` entry (a name alone is `{ name }`). */
  mappings(hooks: Config['hooks'], entry: PresetEntry): MappingConfig[];
  example: PresetExample;
  /**
   * A larger body limit for the preset's own hook path (e.g. mail with attachments), applied
   * only there and only when the preset is enabled; never below hooks.maxBodyBytes.
   */
  bodyAllowance?(hooks: Config['hooks']): { path: string; maxBodyBytes: number };
}

const PRESET_NAME = /^[a-z][a-z0-9-]*$/;

export function definePreset(definition: PresetDefinition): PresetDefinition {
  if (!PRESET_NAME.test(definition.name)) throw new Error(`preset name "${definition.name}" must match ${PRESET_NAME}`);
  return Object.freeze(definition);
}
