import { ConfigSchema } from './schema.js';

interface Row {
  path: string;
  type: string;
  defaultValue: string;
  description: string;
}

type SchemaNode = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  const?: unknown;
  description?: string;
  default?: unknown;
};

/** The configuration reference table, generated from the schema (docs/configuration.md embeds it). */
export function renderConfigReference(): string {
  const rows: Row[] = [];
  walk(ConfigSchema as unknown as SchemaNode, '', rows);
  const lines = ['| key | type | default | description |', '|---|---|---|---|'];
  for (const row of rows) lines.push(`| \`${row.path}\` | ${row.type} | ${row.defaultValue} | ${row.description.replace(/\|/g, '\\|')} |`);
  return `${lines.join('\n')}\n`;
}

function walk(node: SchemaNode, path: string, rows: Row[]): void {
  if (path !== '') rows.push({ path, type: typeOf(node), defaultValue: defaultOf(node), description: node.description ?? '' });
  if (node.properties !== undefined) {
    for (const [key, child] of Object.entries(node.properties)) walk(child, path === '' ? key : `${path}.${key}`, rows);
  }
  if (node.patternProperties !== undefined) {
    for (const child of Object.values(node.patternProperties)) walk(child, `${path}.<id>`, rows);
  }
  if (node.items !== undefined && node.items.properties !== undefined) walk(node.items, `${path}[]`, rows);
  walkKinds(node, path, rows);
  // A union with one object form (a preset's name or its entry with options): that form's keys.
  for (const [union, prefix] of [[node.anyOf, path], [node.items?.anyOf, `${path}[]`]] as const) {
    const objects = (union ?? []).filter((option) => option.properties !== undefined);
    const [only] = objects;
    if (objects.length !== 1 || only?.properties === undefined) continue;
    for (const [key, child] of Object.entries(only.properties)) walk(child, `${prefix}.${key}`, rows);
  }
}

/** A union over `kind` (a target: openclaw, hermes, http): each kind's keys, its description saying which kind. */
function walkKinds(node: SchemaNode, path: string, rows: Row[]): void {
  const kinds = (node.anyOf ?? []).filter((option) => option.properties?.['kind']?.const !== undefined);
  if (kinds.length === 0 || kinds.length !== node.anyOf?.length) return;
  for (const kind of kinds) {
    const name = String(kind.properties?.['kind']?.const);
    const own: Row[] = [];
    for (const [key, child] of Object.entries(kind.properties ?? {})) if (key !== 'kind') walk(child, `${path}.${key}`, own);
    rows.push(...own.map((row) => ({ ...row, description: `(kind \`${name}\`) ${row.description}` })));
  }
}

function typeOf(node: SchemaNode): string {
  if (node.anyOf !== undefined) {
    const consts = node.anyOf.filter((option) => option.const !== undefined).map((option) => `\`${String(option.const)}\``);
    if (consts.length === node.anyOf.length) return consts.join(' \\| ');
    return node.anyOf.map(typeOf).join(' \\| ');
  }
  if (node.patternProperties !== undefined) return 'map';
  if (node.type === 'array') return `${node.items === undefined ? '' : typeOf(node.items)}[]`;
  return Array.isArray(node.type) ? node.type.join(' \\| ') : (node.type ?? 'any');
}

function defaultOf(node: SchemaNode): string {
  if (node.default === undefined) return '';
  if (typeof node.default === 'object' && node.default !== null && Object.keys(node.default).length === 0) return '';
  return `\`${JSON.stringify(node.default)}\``;
}
