import { describe, expect, it } from 'vitest';
import { buildTemplateContext, toSafeRecord } from '../../src/mapping/context.js';
import { createTemplateCompiler, TemplateSyntaxError } from '../../src/mapping/template.js';

const compiler = createTemplateCompiler();

function render(source: string, payload: Record<string, unknown>): string {
  const context = buildTemplateContext(toSafeRecord(payload), {
    headers: toSafeRecord({ 'x-secret-ish': 'HEADER-VALUE' }),
    query: toSafeRecord({ q: 'QUERY-VALUE' }),
    path: 'hook',
    now: '2025-01-02T03:04:05.000Z',
  });
  return compiler.compile(source)(context);
}

function compileError(source: string): string {
  try {
    compiler.compile(source);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateSyntaxError);
    return (error as Error).message;
  }
  throw new Error(`expected ${source} to be refused`);
}

describe('helper names used as plain fields (as OpenClaw templates use them)', () => {
  const helperNames = ['upper', 'lower', 'join', 'truncate', 'json', 'default', 'lookup', 'if', 'unless', 'each', 'with', 'log', 'oneline', 'excerpt', 'pick', 'money', 'date'];

  it.each(helperNames)('{{%s}} renders the payload field of that name', (name) => {
    expect(render(`[{{${name}}}]`, { [name]: `value of ${name}` })).toBe(`[value of ${name}]`);
  });

  it.each(helperNames)('{{%s}} without such a field renders empty, never the context it was called with', (name) => {
    const out = render(`[{{${name}}}]`, { secret: 'PAYLOAD-VALUE' });
    expect(out).toBe('[]');
  });

  it('a helper without argument inside a subexpression or a loop never leaks the context either', () => {
    const out = render('{{default (upper) "none"}}|{{#each items}}<{{json}}>{{/each}}', { items: [{ json: 'a' }, 'b'], secret: 'PAYLOAD-VALUE' });
    expect(out).toBe('none|<a><>');
    expect(out).not.toContain('PAYLOAD-VALUE');
  });

  it('helpers with their arguments keep working', () => {
    expect(render('{{upper s}} {{json o}} {{lookup o "k"}} {{#if s}}yes{{/if}}', { s: 'x', o: { k: 1 } })).toBe('X {"k":1} 1 yes');
  });
});

describe('templates Handlebars cannot honour are load errors with their position', () => {
  it('{{weird key}} names the helper, where it is, and how to write such a field', () => {
    const message = compileError('Hello\n  {{weird key}}');
    expect(message).toMatch(/unknown helper "weird"/);
    expect(message).toMatch(/at line 2, column 3/);
    expect(message).toContain('{{[weird …]}}');
  });

  it('a field whose name has a space renders through the segment-literal form', () => {
    expect(render('{{[weird key]}}', { 'weird key': 'ok' })).toBe('ok');
  });

  it('{{#tag}}…{{/tag}} (a Mustache section) is refused, not silently iterated', () => {
    expect(compileError('a {{#tag}}x{{/tag}}')).toMatch(/"\{\{#tag\}\}" is not a block helper.* at line 1, column 3/);
  });

  it('an unclosed {{#tag}} is a syntax error naming the line', () => {
    expect(compileError('line one\n{{#tag}}')).toMatch(/^syntax error at line 2: the template ends inside an unclosed block/);
  });

  it('{{#if}} and {{#each}} without their argument are refused with the position', () => {
    expect(compileError('{{#if}}x{{/if}}')).toMatch(/"\{\{#if\}\}" needs an argument.* at line 1, column 1/);
    expect(compileError('ab {{#each}}x{{/each}}')).toMatch(/"\{\{#each\}\}" needs an argument.* at line 1, column 4/);
  });

  it.each([
    ['{{if b}}', /"if" is a block helper: write \{\{#if …\}\}…\{\{\/if\}\} at line 1, column 1/],
    ['x {{each list}}', /"each" is a block helper.* at line 1, column 3/],
    ['{{#if a b}}y{{/if}}', /"\{\{#if\}\}" takes exactly one argument/],
    ['{{lookup a}}', /"lookup" takes two arguments/],
  ])('misused built-in %s is a load error, not a raw JS error at request time', (source, message) => {
    expect(compileError(source)).toMatch(message);
  });

  it('positions count columns in the template as written, before the bracket rewrite', () => {
    expect(compileError('{{a[0]}} {{b[1]}} {{shout c}}')).toMatch(/at line 1, column 19/);
  });
});
