import Handlebars from 'handlebars';
import { TEMPLATE_HELPERS, withFieldFallback } from './helpers.js';
import { TemplateSyntaxError, type TemplateCompiler } from '../compiled-template.js';
import { toSafeRecord } from './context.js';
import { describePosition, describeParseError, type Position } from './template-position.js';

export { TemplateSyntaxError, type CompiledTemplate, type TemplateCompiler } from '../compiled-template.js';

const COMPILE_OPTIONS = { noEscape: true, strict: false } as const;

/** Prototype access is denied without Handlebars' console warning (defaults given explicitly). */
const RUNTIME_OPTIONS = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false } as const;

/** The helpers that take a block (`{{#name arg}}…{{/name}}`); any other block is refused at load. */
const BLOCK_HELPERS: ReadonlySet<string> = new Set(['if', 'unless', 'each', 'with']);

/**
 * One isolated Handlebars environment (helpers registered on it, not on the global instance).
 * `log` is removed: a template must not write payload data to the console, and `{{log}}` is
 * then an ordinary field. Every helper is wrapped so that, named without an argument
 * (`{{json}}`, `{{upper}}`, `{{if}}`), it renders the field of that name as a plain path
 * renderer would, never Handlebars' options object (which holds the whole context).
 */
export function createTemplateCompiler(): TemplateCompiler {
  const env = Handlebars.create();
  env.unregisterHelper('log');
  for (const [name, helper] of Object.entries(TEMPLATE_HELPERS)) env.registerHelper(name, helper);
  // The *Missing helpers are Handlebars' internal fallbacks, not callable by name.
  const helperNames = new Set(Object.keys(env.helpers).filter((name) => !name.endsWith('Missing')));
  for (const name of helperNames) env.registerHelper(name, withFieldFallback(name, env.helpers[name] as Handlebars.HelperDelegate));
  // Handlebars compiles `log` as a known helper whatever is registered: this one only reads the
  // field `log`, and `{{log value}}` stays an unknown helper at load (not in helperNames).
  env.registerHelper('log', withFieldFallback('log', () => ''));
  const probe = toSafeRecord({});
  return {
    compile(source) {
      if (!source.includes('{{')) return () => source;
      const rewritten = rewriteBrackets(source);
      let template: ReturnType<typeof env.compile>;
      let ast: ReturnType<typeof env.parse>;
      try {
        ast = env.parse(rewritten);
      } catch (error) {
        throw new TemplateSyntaxError(describeParseError(error));
      }
      checkNodes(ast, { helpers: helperNames, source, rewritten });
      try {
        template = env.compile(rewritten, COMPILE_OPTIONS);
        // Forces the lazy compilation now; checkNodes has already refused what would throw later.
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

interface CheckScope {
  helpers: ReadonlySet<string>;
  source: string;
  rewritten: string;
}

/**
 * Refuses at load what would fail or surprise at request time: unknown helpers (`{{weird key}}`
 * reads as the helper `weird`), blocks that are not block helpers (`{{#tag}}…{{/tag}}`, a
 * Mustache section), block helpers without their argument, partials and decorators. Each error
 * names the position in the template as written.
 */
function checkNodes(node: unknown, scope: CheckScope): void {
  if (Array.isArray(node)) {
    for (const child of node) checkNodes(child, scope);
    return;
  }
  if (!isNode(node)) return;
  const problem = nodeProblem(node, scope.helpers);
  if (problem !== undefined) {
    const loc = (node['loc'] as { start?: Position } | undefined)?.start;
    throw new TemplateSyntaxError(`${problem}${loc === undefined ? '' : ` at ${describePosition(loc, scope.source, scope.rewritten)}`}`);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'loc' && typeof value === 'object') checkNodes(value, scope);
  }
}

function nodeProblem(node: AstNode, helpers: ReadonlySet<string>): string | undefined {
  if (node.type.startsWith('Partial') || node.type.startsWith('Decorator')) return 'partials and decorators are not supported';
  if (node.type !== 'MustacheStatement' && node.type !== 'SubExpression' && node.type !== 'BlockStatement') return undefined;
  const params = Array.isArray(node['params']) ? node['params'] : [];
  const hasArguments = params.length > 0 || node['hash'] !== undefined;
  const path = node['path'];
  const name = isNode(path) && typeof path['original'] === 'string' ? path['original'] : '?';
  if (node.type === 'BlockStatement') {
    if (!BLOCK_HELPERS.has(name)) return `"{{#${name}}}" is not a block helper (blocks: ${[...BLOCK_HELPERS].join(', ')}; a field is written {{${name}}})`;
    if (params.length === 0) return `"{{#${name}}}" needs an argument, e.g. {{#${name} field}}`;
    if (params.length > 1) return `"{{#${name}}}" takes exactly one argument`;
    return undefined;
  }
  // Handlebars' built-ins throw raw errors at request time when misused; refuse them here.
  if (hasArguments && BLOCK_HELPERS.has(name)) return `"${name}" is a block helper: write {{#${name} …}}…{{/${name}}}`;
  if (hasArguments && name === 'lookup' && params.length !== 2) return '"lookup" takes two arguments, e.g. {{lookup object "key"}}';
  if ((hasArguments || node.type === 'SubExpression') && !helpers.has(name)) {
    const hint = hasArguments && params.every((param) => isNode(param) && param.type === 'PathExpression') ? `; a field whose name has spaces is written {{[${name} …]}}` : '';
    return `unknown helper "${name}" (known: ${[...helpers].sort().join(', ')})${hint}`;
  }
  return undefined;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}
