import Handlebars from 'handlebars';
import { TEMPLATE_HELPERS } from './helpers.js';
import { toSafeRecord, type SafeRecord } from './context.js';

/** A compiled template: context in, text out. Throws only on a helper misuse the load check could not see. */
export type CompiledTemplate = (context: SafeRecord) => string;

export interface TemplateCompiler {
  /** Compiles and checks one template; throws TemplateSyntaxError with a readable reason. */
  compile(source: string): CompiledTemplate;
}

export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError';
}

const COMPILE_OPTIONS = { noEscape: true, strict: false } as const;

/** Prototype access is denied without Handlebars' console warning (defaults given explicitly). */
const RUNTIME_OPTIONS = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false } as const;

/**
 * One isolated Handlebars environment (helpers registered on it, not on the global instance).
 * `log` is removed: a template must not write payload data to the console.
 */
export function createTemplateCompiler(): TemplateCompiler {
  const env = Handlebars.create();
  env.unregisterHelper('log');
  for (const [name, helper] of Object.entries(TEMPLATE_HELPERS)) env.registerHelper(name, helper);
  // The *Missing helpers are Handlebars' internal fallbacks, not callable by name.
  const helperNames = new Set(Object.keys(env.helpers).filter((name) => !name.endsWith('Missing')));
  const probe = toSafeRecord({});
  return {
    compile(source) {
      if (!source.includes('{{')) return () => source;
      const rewritten = rewriteBrackets(source);
      let template: ReturnType<typeof env.compile>;
      try {
        checkNodes(env.parse(rewritten), helperNames);
        template = env.compile(rewritten, COMPILE_OPTIONS);
        // Forces the lazy compilation now and catches misuse such as `{{#if}}` without an argument.
        template(probe, RUNTIME_OPTIONS);
      } catch (error) {
        throw new TemplateSyntaxError(describe(error));
      }
      return (context) => template(context, RUNTIME_OPTIONS);
    },
  };
}

/**
 * `{{messages[0].subject}}` (the bracket style of existing configs) → `{{messages.[0].subject}}`.
 * Only inside `{{…}}`, never inside quoted string arguments, never after `\{{` (a literal).
 */
export function rewriteBrackets(source: string): string {
  let out = '';
  let cursor = 0;
  while (cursor < source.length) {
    const open = source.indexOf('{{', cursor);
    if (open === -1) break;
    const close = source.indexOf('}}', open + 2);
    if (close === -1) break;
    const escaped = open > 0 && source[open - 1] === '\\';
    const inner = source.slice(open, close);
    out += source.slice(cursor, open) + (escaped || inner.startsWith('{{!') ? inner : rewriteExpression(inner));
    cursor = close;
  }
  return out + source.slice(cursor);
}

const QUOTED = /("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/;
const INDEX = /(?<=[\w$\]-])\[(\d+)\]/g;

function rewriteExpression(expression: string): string {
  return expression
    .split(QUOTED)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(INDEX, '.[$1]')))
    .join('');
}

type AstNode = { type: string; [key: string]: unknown };

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Refuses what would only fail at request time: unknown helpers, partials, decorators. */
function checkNodes(node: unknown, helpers: ReadonlySet<string>): void {
  if (Array.isArray(node)) {
    for (const child of node) checkNodes(child, helpers);
    return;
  }
  if (!isNode(node)) return;
  if (node.type.startsWith('Partial') || node.type.startsWith('Decorator')) {
    throw new Error('partials and decorators are not supported');
  }
  if (node.type === 'MustacheStatement' || node.type === 'SubExpression' || node.type === 'BlockStatement') {
    const hasArguments = (Array.isArray(node['params']) && node['params'].length > 0) || node['hash'] !== undefined;
    const path = node['path'];
    const name = isNode(path) && typeof path['original'] === 'string' ? path['original'] : '?';
    if ((hasArguments || node.type === 'SubExpression') && !helpers.has(name)) {
      throw new Error(`unknown helper "${name}" (known: ${[...helpers].sort().join(', ')})`);
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'loc' && typeof value === 'object') checkNodes(value, helpers);
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}
