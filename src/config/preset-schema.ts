import Type, { type Static } from 'typebox';
import { SignatureSchema } from './signature-schema.js';
import { DebounceSchema } from './admission-schema.js';
import { PresetLimitFields } from './limits-schema.js';
import { HandoffFields } from './mapping-schema.js';

/**
 * The signature keys a preset entry takes as a mapping's `signature` does (`scheme` is the
 * preset's own). The schemes of today's presets have no options of their own; a preset whose
 * scheme has some adds them here.
 */
const { secret, secrets, toleranceSeconds, allowToken } = SignatureSchema.properties;
const SIGNATURE_OPTIONS = { secret, secrets, toleranceSeconds, allowToken };

const { maxDeliveries, maxBytes } = DebounceSchema.properties;
const PresetDebounceSchema = Type.Object(
  {
    key: Type.Optional(Type.String({ description: 'Template of the merge key. Default: the entity the preset keys sessions by (e.g. `<owner>/<repo>#<number>`).' })),
    windowSeconds: Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: 'The group fires after this many seconds without a new delivery for its key.' }),
    maxWaitSeconds: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 604800, description: 'The group fires at the latest this long after its first delivery. Default: 10 × windowSeconds.' }),
    ),
    keep: Type.Optional(
      Type.Union([Type.Literal('last'), Type.Literal('all')], { description: '`last` (default): the newest delivery, with a line saying how many were merged. `all`: every delivery\'s message.' }),
    ),
    maxChars: Type.Optional(Type.Integer({ minimum: 100, maximum: 1_000_000, description: '`keep: "all"`: bound of the merged message. Default 20000.' })),
    maxDeliveries,
    maxBytes,
  },
  { additionalProperties: false, description: 'Debounce of every event type of the preset, replacing its defaults.' },
);

/** An entry of `hooks.presets` written as an object: a preset with its options (docs/presets.md). */
export const PresetEntrySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'The preset: `gmail`, `github`, `gitlab`, `stripe`, `slack`, `linear`, `sentry`, `pagerduty`, `shopify` (`hookgate presets` lists them).' }),
    path: Type.Optional(
      Type.String({ minLength: 1, pattern: '^[^/]+(/[^/]+)*$', description: 'Sub-path the sender posts to (`{hooks.path}/<path>`). Default: the preset\'s name.' }),
    ),
    ...SIGNATURE_OPTIONS,
    events: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'Event types to act on, replacing the preset\'s default list (`issues` = every issue action, `invoice.*` = the rest of a dotted name, `*` = all).',
      }),
    ),
    filter: Type.Optional(
      Type.Unknown({ description: 'A filter tree (as a mapping\'s `filter`) that every delivery must also pass, on top of the preset\'s own noise filters.' }),
    ),
    action: Type.Optional(Type.Union([Type.Literal('agent'), Type.Literal('wake')], { description: '`agent` (default): an agent run per delivery; `wake`: a main-session event.' })),
    wakeMode: Type.Optional(
      Type.Union([Type.Literal('now'), Type.Literal('next-heartbeat')], {
        description:
          'When the main session hears of a run\'s summary (or of a `wake` event): `next-heartbeat` (default) at its next scheduled heartbeat, so a delivery costs one model call; `now` (default with `action: "wake"`) wakes it at once, a second model call per run.',
      }),
    ),
    deliver: Type.Optional(Type.Boolean({ description: 'Send the agent reply to the channel. Default true.' })),
    channel: Type.Optional(Type.String({ minLength: 1, description: 'Delivery channel; default `last`.' })),
    to: Type.Optional(Type.String({ description: 'Template: recipient on the channel.' })),
    model: Type.Optional(Type.String({ minLength: 1, description: 'Template: model override (alias or provider/model id).' })),
    thinking: Type.Optional(Type.String({ minLength: 1, description: 'Template: thinking-level override.' })),
    debounce: Type.Optional(
      Type.Union([Type.Literal(false), PresetDebounceSchema], { description: 'Replaces the preset\'s default debounce for every event type; `false` turns it off.' }),
    ),
    allowUnsafeExternalContent: Type.Optional(
      Type.Boolean({ description: 'DANGEROUS: the sender\'s text reaches the agent without the untrusted-content envelope.' }),
    ),
    ...PresetLimitFields,
    ...HandoffFields,
  },
  { additionalProperties: false, description: 'A preset with options; a plain string is the preset with its defaults.' },
);
export type PresetEntry = Static<typeof PresetEntrySchema>;
export type PresetDebounce = Static<typeof PresetDebounceSchema>;

/** `hooks.presets` as written: names, or entries with options. */
export const PresetListSchema = Type.Array(Type.Union([Type.String({ minLength: 1 }), PresetEntrySchema]), {
  default: [],
  description:
    'Built-in mappings to enable, after hooks.mappings: a name (`"gmail"`) or an entry with options (`{ name: "github", secret: "${GITHUB_WEBHOOK_SECRET}" }`). docs/presets.md.',
});

/** Every entry as an object (a name alone is `{ name }`). */
export function presetEntries(presets: ReadonlyArray<string | PresetEntry>): PresetEntry[] {
  return presets.map((entry) => (typeof entry === 'string' ? { name: entry } : entry));
}

/** The names of the enabled presets, in order. */
export function presetNames(presets: ReadonlyArray<string | PresetEntry>): string[] {
  return presets.map((entry) => (typeof entry === 'string' ? entry : entry.name));
}
