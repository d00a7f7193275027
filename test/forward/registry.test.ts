import { readFileSync } from 'node:fs';
import JSON5 from 'json5';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { TARGETS } from '../../src/forward/index.js';

const DOCS = readFileSync(new URL('../../docs/forward.md', import.meta.url), 'utf8');
const PLACEHOLDER = `whsec_${Buffer.from('a placeholder for ${VAR} in docs').toString('base64')}`;

interface SchemaNode {
  type?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  items?: SchemaNode;
}

/** Paths of object fields without a description, and of objects that accept unknown keys. */
function undocumented(node: SchemaNode, path = ''): string[] {
  if (node.type !== 'object' || node.properties === undefined) return node.items === undefined ? [] : undocumented(node.items, `${path}[]`);
  const problems = node.additionalProperties === false ? [] : [`${path || '/'} accepts unknown keys`];
  for (const [key, child] of Object.entries(node.properties)) {
    if (key !== 'kind' && (typeof child.description !== 'string' || child.description.trim() === '')) problems.push(`${path}/${key} has no description`);
    problems.push(...undocumented(child, `${path}/${key}`));
  }
  return problems;
}

/** Every json5 example of docs/forward.md that configures targets, as a config object (`${VAR}` filled in). */
function documentedConfigs(): Array<Record<string, unknown>> {
  const blocks = [...DOCS.matchAll(/```json5\n([\s\S]*?)```/g)].map((match) => match[1] ?? '').filter((block) => block.includes('targets:'));
  return blocks.map((block) => JSON5.parse<Record<string, unknown>>(`{${block.replaceAll(/\$\{[A-Z_]+\}/g, PLACEHOLDER)}}`));
}

describe('target registry', () => {
  it('has unique kinds, each the literal `kind` of its schema, with every field described and unknown keys refused', () => {
    const kinds = TARGETS.map((definition) => definition.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const definition of TARGETS) {
      const schema = definition.configSchema as SchemaNode & { properties: { kind: { const?: unknown } } };
      expect(schema.properties.kind.const).toBe(definition.kind);
      expect(undocumented(schema), definition.kind).toEqual([]);
      expect(() => Compile(definition.configSchema)).not.toThrow();
    }
  });

  it('every kind has an example in docs/forward.md, and every example there is a valid configuration', () => {
    const configs = documentedConfigs();
    const documented = new Set(configs.flatMap((config) => Object.values(config['targets'] as Record<string, { kind: string }>).map((target) => target.kind)));
    expect([...documented].sort()).toEqual(TARGETS.map((definition) => definition.kind).sort());
    for (const config of configs) {
      const hooks = { enabled: true, token: 'docs-hook-token', ...(config['hooks'] as object | undefined) };
      expect(() => resolveConfig({ ...config, hooks }, { configDir: '/tmp' })).not.toThrow();
    }
  });
});
