import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTemplateContext, toSafeRecord } from '../../src/mapping/context.js';
import { createTemplateCompiler } from '../../src/mapping/template.js';

/**
 * The documented rendering rules (docs/mappings.md, and OpenClaw's plain path renderer):
 * `{{a.b}}` / `{{a[0].b}}` reads the payload by field names and array indexes (a string's index is
 * its character, `length` of an array or a string its length); missing or null →
 * '', strings as they are, numbers and booleans as text, objects and arrays as JSON. This
 * reference implements only those rules; Hookgate's Handlebars rendering must agree with it.
 */
type Segment = { kind: 'field'; name: string } | { kind: 'index'; index: number };

function referenceText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function referenceLookup(payload: unknown, path: Segment[]): unknown {
  let value = payload;
  for (const segment of path) {
    // As JavaScript reads them: a string's index is its character, an array's or a string's own
    // `length` is its length; nothing else of a string or an array resolves.
    const readable = typeof value === 'string' || (value !== null && typeof value === 'object');
    const key = segment.kind === 'index' ? String(segment.index) : segment.name;
    value = readable && Object.hasOwn(Object(value), key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

function pathSource(path: Segment[]): string {
  return path.map((segment, i) => (segment.kind === 'index' ? `[${segment.index}]` : i === 0 ? segment.name : `.${segment.name}`)).join('');
}

// Field names include the helper names a payload may well use (`json`, `if`, `each`…); names the
// context reserves at its root (payload, headers, query, path, now) and Handlebars literals are left out.
const HELPER_NAMES = ['json', 'if', 'each', 'lookup', 'log', 'upper', 'lower', 'join', 'truncate', 'default', 'with', 'unless'];
const fieldName = fc.oneof(fc.constantFrom('a', 'b', 'subject', 'items', ...HELPER_NAMES), fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,6}$/)).filter(
  (name) => !['payload', 'headers', 'query', 'path', 'now', 'this', 'else', 'true', 'false', 'null', 'undefined'].includes(name),
);

const jsonLeaf = fc.oneof(fc.string({ maxLength: 12 }).filter((s) => !s.includes('{{')), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const { value: payloadValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, jsonLeaf, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fieldName, tie('value'), { maxKeys: 4 })),
}));
const payload = fc.dictionary(fieldName, payloadValue, { maxKeys: 6 });

const segment: fc.Arbitrary<Segment> = fc.oneof(
  fieldName.map((name) => ({ kind: 'field' as const, name })),
  fc.nat({ max: 3 }).map((index) => ({ kind: 'index' as const, index })),
);
const path = fc.tuple(fieldName, fc.array(segment, { maxLength: 3 })).map(([first, rest]): Segment[] => [{ kind: 'field', name: first }, ...rest]);
const literal = fc.string({ maxLength: 8 }).filter((s) => !/[{}\\]/.test(s));
const template = fc.array(fc.tuple(literal, path), { minLength: 1, maxLength: 4 });

describe('template rendering follows the documented path rules', () => {
  const compiler = createTemplateCompiler();

  it('for random payloads and templates built from field paths', () => {
    fc.assert(
      fc.property(payload, template, (body, parts) => {
        const source = parts.map(([text, p]) => `${text}{{${pathSource(p)}}}`).join('');
        const expected = parts.map(([text, p]) => text + referenceText(referenceLookup(body, p))).join('');
        const context = buildTemplateContext(toSafeRecord(body), { headers: toSafeRecord({}), query: toSafeRecord({}), path: 'hook', now: 'now' });
        expect(compiler.compile(source)(context)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
