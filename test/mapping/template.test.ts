import { describe, expect, it } from 'vitest';
import { buildTemplateContext, toSafeRecord } from '../../src/mapping/context.js';
import { createTemplateCompiler, rewriteBrackets, TemplateSyntaxError } from '../../src/mapping/template.js';

const compiler = createTemplateCompiler();

function render(source: string, payload: Record<string, unknown>, parts: { headers?: Record<string, string>; query?: Record<string, string>; path?: string } = {}): string {
  const context = buildTemplateContext(toSafeRecord(payload), {
    headers: toSafeRecord(parts.headers ?? {}),
    query: toSafeRecord(parts.query ?? {}),
    path: parts.path ?? 'hook',
    now: '2025-01-02T03:04:05.000Z',
  });
  return compiler.compile(source)(context);
}

describe('bracket compatibility', () => {
  it('rewrites a[0].b inside mustaches to the Handlebars segment form', () => {
    expect(rewriteBrackets('{{messages[0].subject}} and {{a[1][2]}}')).toBe('{{messages.[0].subject}} and {{a.[1].[2]}}');
  });

  it('leaves text outside mustaches, quoted arguments and escaped mustaches alone', () => {
    expect(rewriteBrackets('x[0] {{default a[0] "b[1]"}} \\{{c[2]}}')).toBe('x[0] {{default a.[0] "b[1]"}} \\{{c[2]}}');
  });

  it('renders the bracket style of existing configs like the dotted style', () => {
    const payload = { messages: [{ subject: 'first' }, { subject: 'second' }] };
    expect(render('{{messages[1].subject}}|{{messages.[0].subject}}', payload)).toBe('second|first');
  });

  it('rewrites brackets inside block helpers too', () => {
    expect(render('{{#if items[0].ok}}yes{{else}}no{{/if}}', { items: [{ ok: true }] })).toBe('yes');
  });
});

describe('template context', () => {
  it('exposes payload fields at the root and under payload, plus headers, query, path and now', () => {
    const out = render('{{a}} {{payload.a}} {{headers.x-kind}} {{query.page}} {{path}} {{now}}', { a: 'A' }, { headers: { 'x-kind': 'push' }, query: { page: '2' }, path: 'github' });
    expect(out).toBe('A A push 2 github 2025-01-02T03:04:05.000Z');
  });

  it('lets the fixed names win at the root while the payload value stays reachable under payload', () => {
    expect(render('{{path}}/{{payload.path}}', { path: 'from-payload' }, { path: 'hook-name' })).toBe('hook-name/from-payload');
  });

  it('renders missing values as empty text', () => {
    expect(render('[{{nothing}}][{{deep.nothing.here}}][{{list[5].x}}][{{nul}}]', { list: [], nul: null })).toBe('[][][][]');
  });

  it('renders objects and arrays as JSON instead of [object Object]', () => {
    expect(render('{{obj}} {{arr}} {{payload}}', { obj: { k: 1 }, arr: [1, 'two'] })).toBe('{"k":1} [1,"two"] {"obj":{"k":1},"arr":[1,"two"]}');
  });

  it('does not HTML-escape: the output is text for a model', () => {
    expect(render('{{s}}', { s: '<b>"Tom" & Jerry</b>' })).toBe('<b>"Tom" & Jerry</b>');
  });

  it('never resolves prototype paths on values', () => {
    const out = render('[{{s.constructor}}][{{obj.constructor}}][{{obj.__proto__}}][{{arr.constructor}}][{{constructor}}][{{s.constructor.prototype}}][{{lookup obj "constructor"}}]', {
      s: 'text',
      obj: { k: 1 },
      arr: [1],
    });
    expect(out).toBe('[][][][][][][]');
  });

  it('never resolves __proto__, constructor or prototype even when the payload has them as own keys', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"name": "evil"}, "prototype": "p", "nested": {"constructor": "c", "ok": "fine"}}') as Record<string, unknown>;
    expect(Object.hasOwn(payload, '__proto__')).toBe(true);
    const out = render('[{{__proto__.polluted}}][{{constructor.name}}][{{prototype}}][{{nested.constructor}}][{{nested.ok}}][{{polluted}}][{{payload}}]', payload);
    expect(out).toBe('[][][][][fine][][{"nested":{"ok":"fine"}}]');
  });
});

describe('helpers', () => {
  it('json renders a value as JSON, with an optional indent', () => {
    expect(render('{{json obj}}|{{json missing}}|{{json obj indent=2}}', { obj: { a: [1] } })).toBe('{"a":[1]}||{\n  "a": [\n    1\n  ]\n}');
  });

  it('default gives the first non-empty argument', () => {
    expect(render('{{default a b "fallback"}}|{{default a "" "fallback"}}|{{default a b}}', { b: 'B' })).toBe('B|fallback|B');
  });

  it('truncate cuts at N characters and appends a suffix only when it cut', () => {
    expect(render('{{truncate s 5}}|{{truncate s 50}}|{{truncate s 5 "..."}}|{{truncate e 1}}', { s: 'hello world', e: '😀😀' })).toBe('hello…|hello world|hello...|😀…');
  });

  it('lower, upper and join', () => {
    expect(render('{{lower s}} {{upper s}} {{join list}} {{join list " / "}} {{join objs}}', { s: 'MiXed', list: ['a', 'b'], objs: [{ x: 1 }] })).toBe('mixed MIXED a, b a / b {"x":1}');
  });

  it('has no log helper that could write payload data to the console', () => {
    expect(() => compiler.compile('{{log payload}}')).toThrow(TemplateSyntaxError);
  });
});

describe('compilation', () => {
  it('returns constant text without involving Handlebars when there is no mustache', () => {
    expect(compiler.compile('plain text')(toSafeRecord({}))).toBe('plain text');
  });

  it.each([
    ['an unclosed mustache', '{{a'],
    ['a mismatched block', '{{#if a}}x{{/each}}'],
    ['an unknown helper', '{{shout a}}'],
    ['an unknown helper in a subexpression', '{{lower (shout a)}}'],
    ['a partial', '{{> header}}'],
    ['an if without its argument', '{{#if}}x{{/if}}'],
  ])('refuses %s at load time', (_label, source) => {
    expect(() => compiler.compile(source)).toThrow(TemplateSyntaxError);
  });

  it('names the unknown helper in the error', () => {
    expect(() => compiler.compile('{{shout a}}')).toThrow(/unknown helper "shout"/);
  });
});
