import { describe, expect, it } from 'vitest';
import { compileFilter, type CompiledFilter } from '../../src/admission/filter-compile.js';
import { evaluateFilter, traceFilter, type ConditionTrace } from '../../src/admission/filter-eval.js';
import type { FieldSource } from '../../src/admission/field-path.js';

function compiled(tree: unknown): CompiledFilter {
  const { filter, problems } = compileFilter(tree);
  if (filter === undefined) throw new Error(JSON.stringify(problems));
  return filter;
}

function source(payload: unknown, extra: Partial<FieldSource> = {}): FieldSource {
  return { payload, headers: {}, query: {}, event: undefined, ...extra };
}

const PR = { action: 'synchronize', pull_request: { draft: false, labels: ['bug', 'ui'], title: 'Fix login page', additions: 12 }, sender: { type: 'User', login: 'ann' } };

describe('filter evaluation', () => {
  it.each([
    [{ field: 'payload.action', equals: 'synchronize' }, true],
    [{ field: 'payload.pull_request.draft', notEquals: true }, true],
    [{ field: 'payload.missing', notEquals: true }, true],
    [{ field: 'payload.missing', equals: null }, false],
    [{ field: 'payload.action', in: ['opened', 'synchronize'] }, true],
    [{ field: 'payload.action', notIn: ['opened', 'closed'] }, true],
    [{ field: 'payload.pull_request.title', contains: 'login' }, true],
    [{ field: 'payload.pull_request.labels', contains: 'ui' }, true],
    [{ field: 'payload.pull_request.labels', contains: 'u' }, false],
    [{ field: 'payload.pull_request.labels[1]', equals: 'ui' }, true],
    [{ field: 'payload.pull_request.title', startsWith: 'Fix' }, true],
    [{ field: 'payload.pull_request.title', endsWith: 'page' }, true],
    [{ field: 'payload.pull_request.title', regex: '^Fix\\s+\\w+' }, true],
    [{ field: 'payload.pull_request.additions', regex: '12' }, false],
    [{ field: 'payload.sender', exists: true }, true],
    [{ field: 'payload.sender.bot', exists: false }, true],
    [{ field: 'payload.pull_request.additions', gt: 10 }, true],
    [{ field: 'payload.pull_request.additions', lte: 11 }, false],
    [{ field: 'payload.pull_request.title', gte: 0 }, false],
  ])('%j → %s', (condition, expected) => {
    expect(evaluateFilter(compiled(condition), source(PR))).toBe(expected);
  });

  it('combines all, any and not, and reads headers, query and the event type', () => {
    const filter = compiled({
      all: [
        { not: { field: 'payload.sender.type', equals: 'Bot' } },
        { any: [{ field: 'event', startsWith: 'pull_request.' }, { field: 'headers.X-Priority', exists: true }] },
        { field: 'query.env', equals: 'prod' },
        { field: 'headers.x-count', gte: 3 },
      ],
    });
    const headers = { 'x-count': '5' };
    expect(evaluateFilter(filter, source(PR, { headers, query: { env: 'prod' }, event: 'pull_request.synchronize' }))).toBe(true);
    expect(evaluateFilter(filter, source(PR, { headers, query: { env: 'dev' }, event: 'pull_request.synchronize' }))).toBe(false);
    expect(evaluateFilter(filter, source(PR, { headers: { ...headers, 'x-priority': 'high' }, query: { env: 'prod' }, event: 'push' }))).toBe(true);
    expect(evaluateFilter(filter, source({ ...PR, sender: { type: 'Bot' } }, { headers, query: { env: 'prod' }, event: 'pull_request.opened' }))).toBe(false);
  });

  it('never reads through prototypes', () => {
    expect(evaluateFilter(compiled({ field: 'payload.toString', exists: true }), source({}))).toBe(false);
    expect(evaluateFilter(compiled({ field: 'payload.length', exists: true }), source([1, 2]))).toBe(false);
  });

  it('traces every condition with the value it read, with the same result as evaluation', () => {
    const filter = compiled({ any: [{ field: 'payload.action', equals: 'opened' }, { field: 'payload.sender.login', equals: 'ann' }] });
    const traces: ConditionTrace[] = [];
    expect(traceFilter(filter, source(PR), traces)).toBe(true);
    expect(traces).toEqual([
      { pointer: 'filter/any/0', field: 'payload.action', op: 'equals', expected: 'opened', actual: 'synchronize', result: false },
      { pointer: 'filter/any/1', field: 'payload.sender.login', op: 'equals', expected: 'ann', actual: 'ann', result: true },
    ]);
  });

  it('runs a pattern that is catastrophic for backtracking engines in linear time', () => {
    const filter = compiled({ field: 'payload.text', regex: '^(a+)+$' });
    const text = `${'a'.repeat(50_000)}!`;
    expect(evaluateFilter(filter, source({ text }))).toBe(false);
  });
});

describe('filter compilation', () => {
  it.each([
    [{ field: 'payload.a', like: 'x' }, 'filter/like', /unknown operator "like"/],
    [{ field: 'body.a', equals: 1 }, 'filter/field', /must start with payload\., headers\., query\. or be event/],
    [{ field: 'payload.__proto__.x', equals: 1 }, 'filter/field', /forbidden key/],
    [{ field: 'payload.a', equals: 1, in: [1] }, 'filter', /exactly one operator/],
    [{ field: 'payload.a', in: 'x' }, 'filter/in', /array/],
    [{ field: 'payload.a', gt: '3' }, 'filter/gt', /number/],
    [{ field: 'payload.a', regex: '(a)\\1' }, 'filter/regex', /RE2/],
    [{ all: [] }, 'filter/all', /non-empty array/],
    [{ all: [{ field: 'payload.a', exists: 'yes' }] }, 'filter/all/0/exists', /true or false/],
    [{ some: [] }, 'filter', /unknown filter key "some"/],
    [{ any: [{ not: { field: 'headers.a.b', exists: true } }] }, 'filter/any/0/not/field', /one header/],
  ])('%j is refused at %s', (tree, field, message) => {
    const { filter, problems } = compileFilter(tree);
    expect(filter).toBeUndefined();
    expect(problems).toEqual([{ field, message: expect.stringMatching(message) as unknown as string }]);
  });

  it('reports every problem of a tree at once', () => {
    const { problems } = compileFilter({ all: [{ field: 'x', equals: 1 }, { field: 'payload.a', near: 1 }] });
    expect(problems.map((problem) => problem.field)).toEqual(['filter/all/0/field', 'filter/all/1/near']);
  });
});
