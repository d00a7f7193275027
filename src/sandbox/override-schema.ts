import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { collapseLiteralUnions } from '../schema-errors.js';

/**
 * What a transform may return. `allowUnsafeExternalContent` is deliberately absent: opting out of
 * the envelope is a configuration decision, never something payload-driven code can make.
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
    deliver: Type.Optional(Type.Boolean()),
    channel: Type.Optional(Type.String()),
    to: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    thinking: Type.Optional(Type.String()),
    timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  { additionalProperties: false },
);
export type TransformOverride = Static<typeof TransformOverrideSchema>;

const validator = Compile(TransformOverrideSchema);
const FIELDS = Object.keys(TransformOverrideSchema.properties);

export type OverrideCheck = { ok: true; value: TransformOverride } | { ok: false; reason: string };

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
  if (!validator.Check(value)) return { ok: false, reason: `invalid override ${describeProblem(value)}` };
  const { kind, ...rest } = value;
  if (kind !== undefined && rest.action !== undefined && kind !== rest.action) {
    return { ok: false, reason: `invalid override /kind: "${kind}" contradicts /action "${rest.action}" (kind is a synonym of action)` };
  }
  return { ok: true, value: kind === undefined ? rest : { ...rest, action: kind } };
}

function describeProblem(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const unknown = Object.keys(value).find((key) => !FIELDS.includes(key));
    if (unknown !== undefined) {
      const near = closest(unknown);
      return `/${unknown.slice(0, 64)}: unknown field${near === undefined ? ` (fields: ${FIELDS.join(', ')})` : `; did you mean "${near}"?`}`;
    }
  }
  const first = collapseLiteralUnions(validator.Errors(value))[0];
  return `${first?.instancePath || '/'}: ${first?.message ?? 'invalid'}`;
}

/** The known field within edit distance 2 (case ignored), for a typo hint. */
function closest(name: string): string | undefined {
  let best: { field: string; distance: number } | undefined;
  for (const field of FIELDS) {
    const distance = editDistance(name.toLowerCase(), field.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
