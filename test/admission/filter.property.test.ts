import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../src/admission/filter-compile.js';
import { evaluateFilter } from '../../src/admission/filter-eval.js';

/*
 * The compiled evaluator against a reference written straight from docs/flow-control.md: it
 * interprets the raw filter JSON (no compilation, no field-path parser) over random trees and
 * payloads drawn from a small vocabulary, so that conditions often hold and often do not.
 */

const FIELDS = ['payload.a', 'payload.b.c', 'payload.list', 'payload.list[0]', 'headers.x-k', 'query.q', 'event'] as const;
const PRIMITIVES = fc.oneof(fc.constantFrom('x', 'y', 'xy', 'yx', '', '3', '10'), fc.constantFrom(0, 3, 10, -1.5), fc.boolean(), fc.constant(null));
const STRINGS = fc.constantFrom('x', 'y', 'xy', '1', '');
const PATTERNS = fc.constantFrom('^x', 'y$', 'x+y', '^(x|y)*$', '[0-9]');

type Raw = Record<string, unknown>;

const condition: fc.Arbitrary<Raw> = fc.constantFrom(...FIELDS).chain((field) =>
  fc.oneof(
    PRIMITIVES.map((value) => ({ field, equals: value })),
    PRIMITIVES.map((value) => ({ field, notEquals: value })),
    fc.array(PRIMITIVES, { maxLength: 3 }).map((value) => ({ field, in: value })),
    fc.array(PRIMITIVES, { maxLength: 3 }).map((value) => ({ field, notIn: value })),
    PRIMITIVES.map((value) => ({ field, contains: value })),
    STRINGS.map((value) => ({ field, startsWith: value })),
    STRINGS.map((value) => ({ field, endsWith: value })),
    PATTERNS.map((value) => ({ field, regex: value })),
    fc.boolean().map((value) => ({ field, exists: value })),
    fc.constantFrom('gt', 'gte', 'lt', 'lte').chain((op) => fc.constantFrom(0, 3, 10).map((value) => ({ field, [op]: value }))),
  ),
);

const tree = fc.letrec<{ node: Raw }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    condition,
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((children) => ({ all: children })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((children) => ({ any: children })),
    tie('node').map((child) => ({ not: child })),
  ),
})).node;

const value = fc.oneof(PRIMITIVES, fc.array(PRIMITIVES, { maxLength: 3 }));
const request = fc.record({
  payload: fc.record({ a: value, b: fc.oneof(fc.record({ c: value }), PRIMITIVES), list: fc.oneof(fc.array(PRIMITIVES, { maxLength: 3 }), PRIMITIVES) }, { requiredKeys: [] }),
  headers: fc.record({ 'x-k': fc.constantFrom('x', '3', '10', 'xy') }, { requiredKeys: [] }),
  query: fc.record({ q: fc.constantFrom('y', '0', 'yx') }, { requiredKeys: [] }),
  event: fc.option(fc.constantFrom('x', 'xy', 'push'), { nil: undefined }),
});

type Request = { payload: Raw; headers: Record<string, string>; query: Record<string, string>; event: string | undefined };

function lookup(field: string, req: Request): unknown {
  const own = (object: unknown, key: string): unknown => (object !== null && typeof object === 'object' && !Array.isArray(object) && Object.hasOwn(object, key) ? (object as Raw)[key] : undefined);
  switch (field) {
    case 'payload.a':
      return own(req.payload, 'a');
    case 'payload.b.c':
      return own(own(req.payload, 'b'), 'c');
    case 'payload.list':
      return own(req.payload, 'list');
    case 'payload.list[0]': {
      const list = own(req.payload, 'list');
      return Array.isArray(list) ? list[0] : undefined;
    }
    case 'headers.x-k':
      return req.headers['x-k'];
    case 'query.q':
      return req.query['q'];
    default:
      return req.event;
  }
}

const numeric = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined);

function reference(node: Raw, req: Request): boolean {
  if ('all' in node) return (node['all'] as Raw[]).every((child) => reference(child, req));
  if ('any' in node) return (node['any'] as Raw[]).some((child) => reference(child, req));
  if ('not' in node) return !reference(node['not'] as Raw, req);
  const actual = lookup(node['field'] as string, req);
  const [op, expected] = Object.entries(node).find(([key]) => key !== 'field') as [string, unknown];
  const text = typeof actual === 'string' ? actual : undefined;
  switch (op) {
    case 'equals':
      return actual === expected;
    case 'notEquals':
      return actual !== expected;
    case 'in':
      return (expected as unknown[]).some((item) => item === actual);
    case 'notIn':
      return !(expected as unknown[]).some((item) => item === actual);
    case 'contains':
      return text !== undefined ? typeof expected === 'string' && text.indexOf(expected) !== -1 : Array.isArray(actual) && actual.some((item) => item === expected);
    case 'startsWith':
      return text !== undefined && text.slice(0, (expected as string).length) === expected;
    case 'endsWith':
      return text !== undefined && text.slice(text.length - (expected as string).length) === expected;
    case 'regex':
      return text !== undefined && new RegExp(expected as string).test(text);
    case 'exists':
      return (actual !== undefined) === expected;
    default: {
      const number = numeric(actual);
      const bound = expected as number;
      if (number === undefined) return false;
      return op === 'gt' ? number > bound : op === 'gte' ? number >= bound : op === 'lt' ? number < bound : number <= bound;
    }
  }
}

describe('filter evaluation (property)', () => {
  it('agrees with the reference evaluator on random trees and requests', () => {
    fc.assert(
      fc.property(tree, request, (raw, req) => {
        const { filter, problems } = compileFilter(raw);
        expect(problems).toEqual([]);
        expect(evaluateFilter(filter!, req)).toBe(reference(raw, req as Request));
      }),
      { numRuns: 2000 },
    );
  });
});
