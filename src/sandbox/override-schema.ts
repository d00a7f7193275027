import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { collapseLiteralUnions } from '../schema-errors.js';
import { nearestName } from '../near-name.js';

/**
 * What a transform may return. `allowUnsafeExternalContent` is deliberately refused: opting out of
 * the envelope is a configuration decision, never something payload-driven code can make. Other
 * keys outside this schema are dropped and reported (`ignored`), as OpenClaw ignores them.
 */
export const TransformOverrideSchema = Type.Object(
  {
    action: Type.Optional(Type.Union([Type.Literal('wake'), Type.Literal('agent'), Type.Literal('notify')])),
    /** OpenClaw's name for `action`; normalised away by parseOverride/normaliseOverride. */
    kind: Type.Optional(Type.Union([Type.Literal('wake'), Type.Literal('agent'), Type.Literal('notify')])),
    text: Type.Optional(Type.String({ description: 'Wake event text, or the text a notify sends.' })),
    message: Type.Optional(Type.String({ description: 'Agent message.' })),
    name: Type.Optional(Type.String()),
    sessionKey: Type.Optional(Type.String()),
    wakeMode: Type.Optional(Type.Union([Type.Literal('now'), Type.Literal('next-heartbeat')])),
    /** OpenClaw's wake-result name for `wakeMode`; normalised away like `kind`. */
    mode: Type.Optional(Type.Union([Type.Literal('now'), Type.Literal('next-heartbeat')])),
    agentId: Type.Optional(Type.String({ description: 'Only `main` (within hooks.allowedAgentIds).' })),
    sessionMode: Type.Optional(Type.Union([Type.Literal('isolated'), Type.Literal('persistent')])),
    /** OpenClaw marks where a key came from; Hookgate fences every key alike, so it changes nothing. */
    sessionKeySource: Type.Optional(Type.Union([Type.Literal('static'), Type.Literal('templated')])),
    deliver: Type.Optional(Type.Boolean()),
    channel: Type.Optional(Type.String()),
    to: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    thinking: Type.Optional(Type.String()),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    forward: Type.Optional(Type.String({ minLength: 1, description: 'A configured target (`targets.<name>`) the action is handed to instead of running here.' })),
  },
  { additionalProperties: false },
);
export type TransformOverride = Omit<Static<typeof TransformOverrideSchema>, 'kind' | 'mode' | 'sessionKeySource'>;

const validator = Compile(TransformOverrideSchema);
const FIELDS = Object.keys(TransformOverrideSchema.properties);
/** Keys a transform may not set even though OpenClaw's transforms can: refused by name, never dropped. */
const REFUSED: Readonly<Record<string, string>> = {
  allowUnsafeExternalContent: 'only the mapping in the config file may turn the envelope off',
};

/** `ignored`: unknown keys dropped from the result (with a "did you mean" when one is near), for one warning per module. */
export type OverrideCheck = { ok: true; value: TransformOverride; ignored?: string[] } | { ok: false; reason: string };

/** Parses the JSON a guest produced; returns the override or a one-line reason naming the field. */
export function parseOverride(json: string): OverrideCheck {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'result is not valid JSON' };
  }
  return checkOverrideValue(value);
}

/**
 * Validates an override and folds `kind` (OpenClaw's field) into `action`. A reason names the
 * field and why: `/actoin: unknown field; did you mean "action"?`, `/timeoutSeconds: must be number`.
 */
export function checkOverrideValue(value: unknown): OverrideCheck {
  const { known, ignored } = splitUnknown(value);
  const refused = Object.keys(REFUSED).find((key) => ignored.some((entry) => entry.key === key));
  if (refused !== undefined) return { ok: false, reason: `invalid override /${refused}: not allowed in a transform result (${REFUSED[refused]})` };
  if (!validator.Check(known)) return { ok: false, reason: `invalid override ${describeProblem(known)}` };
  const { kind, mode, sessionKeySource: _source, ...rest } = known;
  const conflict = synonymConflict('kind', kind, 'action', rest.action) ?? synonymConflict('mode', mode, 'wakeMode', rest.wakeMode);
  if (conflict !== undefined) return { ok: false, reason: conflict };
  const folded: TransformOverride = { ...rest, ...(kind === undefined ? {} : { action: kind }), ...(mode === undefined ? {} : { wakeMode: mode }) };
  return ignored.length === 0 ? { ok: true, value: folded } : { ok: true, value: folded, ignored: ignored.map((entry) => entry.label) };
}

function synonymConflict(synonym: string, given: string | undefined, field: string, other: string | undefined): string | undefined {
  if (given === undefined || other === undefined || given === other) return undefined;
  return `invalid override /${synonym}: "${given}" contradicts /${field} "${other}" (${synonym} is a synonym of ${field})`;
}

/** The result without keys outside the schema, and those keys labelled for a warning (`actoin (did you mean "action"?)`). */
function splitUnknown(value: unknown): { known: unknown; ignored: Array<{ key: string; label: string }> } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { known: value, ignored: [] };
  const known: Record<string, unknown> = {};
  const ignored: Array<{ key: string; label: string }> = [];
  for (const [key, field] of Object.entries(value)) {
    if (FIELDS.includes(key)) known[key] = field;
    else ignored.push({ key, label: labelOf(key) });
  }
  return { known, ignored };
}

function labelOf(key: string): string {
  const near = nearestName(key, FIELDS);
  return `${JSON.stringify(key.slice(0, 64))}${near === undefined ? '' : ` (did you mean "${near}"?)`}`;
}

function describeProblem(value: unknown): string {
  const first = collapseLiteralUnions(validator.Errors(value))[0];
  return `${first?.instancePath || '/'}: ${first?.message ?? 'invalid'}`;
}
