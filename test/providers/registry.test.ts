import { readFileSync } from 'node:fs';
import JSON5 from 'json5';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { ProviderConfigSchema, type ProviderConfig } from '../../src/providers/config-schema.js';
import { createProviders, PROVIDERS } from '../../src/providers/index.js';

const deps = { fetch: globalThis.fetch, logger: silentLogger() };
const DOCS = readFileSync(new URL('../../docs/providers.md', import.meta.url), 'utf8');

interface SchemaNode {
  type?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  anyOf?: SchemaNode[];
  items?: SchemaNode;
}

/** Paths of object fields without a description, and of objects that accept unknown keys. */
function undocumented(node: SchemaNode, path = ''): string[] {
  const problems: string[] = [];
  if (node.type === 'object' && node.properties !== undefined) {
    if (node.additionalProperties !== false) problems.push(`${path || '/'} accepts unknown keys`);
    for (const [key, child] of Object.entries(node.properties)) {
      if (typeof child.description !== 'string' || child.description.trim() === '') problems.push(`${path}/${key} has no description`);
      problems.push(...undocumented(child, `${path}/${key}`));
    }
  }
  for (const member of node.anyOf ?? []) problems.push(...undocumented(member, path));
  return problems;
}

/** The `models.providers` entries of every json5 example in docs/providers.md. */
function documentedExamples(): [string, unknown][] {
  const blocks = [...DOCS.matchAll(/```json5\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  expect(blocks.length).toBeGreaterThan(0);
  return blocks.flatMap((block) => Object.entries((JSON5.parse<{ models: { providers: Record<string, unknown> } }>(block)).models.providers));
}

function configError(run: () => unknown): ConfigError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return caught as ConfigError;
}

describe('provider registry', () => {
  it('has unique api values, each matching the literal `api` of its schema', () => {
    const apis = PROVIDERS.map((definition) => definition.api);
    expect(new Set(apis).size).toBe(apis.length);
    for (const definition of PROVIDERS) {
      const api = (definition.configSchema as SchemaNode).properties?.['api'] as { const?: unknown } | undefined;
      expect(api?.const, definition.api).toBe(definition.api);
      expect(definition.summary.length, definition.api).toBeGreaterThan(10);
    }
  });

  it.each(PROVIDERS.map((definition) => [definition.api, definition.configSchema] as const))(
    'compiles the %s config schema, which refuses unknown keys and describes every field',
    (_api, schema: TSchema) => {
      expect(() => Compile(schema)).not.toThrow();
      expect(undocumented(schema as SchemaNode)).toEqual([]);
    },
  );

  it('lists exactly the registered schemas in the ProviderConfigSchema union used by the config file', () => {
    const members = (ProviderConfigSchema as SchemaNode).anyOf ?? [];
    expect(new Set(members)).toEqual(new Set(PROVIDERS.map((definition) => definition.configSchema)));
    expect(members).toHaveLength(PROVIDERS.length);
    expect((ProviderConfigSchema as SchemaNode).description).toBeTruthy();
  });

  it('has an example in docs/providers.md for every api, and every example builds', () => {
    const examples = documentedExamples();
    const apis = new Set(examples.map(([, entry]) => (entry as { api: string }).api));
    expect([...apis].sort()).toEqual(PROVIDERS.map((definition) => definition.api).sort());
    const validator = Compile(ProviderConfigSchema);
    for (const [id, entry] of examples) expect(validator.Check(entry), id).toBe(true);
    const built = createProviders(Object.fromEntries(examples) as Record<string, ProviderConfig>, deps);
    expect([...built.keys()].sort()).toEqual(['echo', ...examples.map(([id]) => id)].sort());
  });

  it('always builds the built-in echo provider under the id echo', async () => {
    const providers = createProviders({}, deps);
    expect([...providers.keys()]).toEqual(['echo']);
    const echo = providers.get('echo');
    expect(echo?.api).toBe('echo');
    await expect(echo?.complete({ model: 'echo', messages: [{ role: 'user', content: 'hi' }], signal: new AbortController().signal })).resolves.toEqual({
      text: 'Echo: hi',
    });
  });

  it('builds each configured provider under its id with its api', () => {
    const providers = createProviders(
      {
        remote: { api: 'openai-completions', baseUrl: 'http://127.0.0.1:9/v1' },
        local: { api: 'command', command: ['true'] },
        echo: { api: 'echo' },
      },
      deps,
    );
    expect(Object.fromEntries([...providers].map(([id, provider]) => [id, [provider.id, provider.api]]))).toEqual({
      echo: ['echo', 'echo'],
      remote: ['remote', 'openai-completions'],
      local: ['local', 'command'],
    });
  });

  it('rejects configs that do not fit their api with one ConfigError naming each provider id and path', () => {
    const error = configError(() =>
      createProviders(
        {
          remote: { api: 'openai-completions', baseUrl: 'ftp://example.com', colour: 'red' } as unknown as ProviderConfig,
          local: { api: 'command', command: [] },
          mystery: { api: 'smoke-signals' } as unknown as ProviderConfig,
        },
        deps,
      ),
    );
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/models/providers/remote', '/models/providers/remote/baseUrl', '/models/providers/local/command', '/models/providers/mystery/api']),
    );
    expect(error.issues.find((issue) => issue.path === '/models/providers/remote')?.message).toContain('colour');
    expect(error.issues.find((issue) => issue.path === '/models/providers/mystery/api')?.message).toContain('smoke-signals');
    for (const issue of error.issues) expect(issue.message).toMatch(/^provider "(remote|local|mystery)": /);
  });

  it('rejects a header an HTTP request could not carry at start-up instead of at the first run', () => {
    const error = configError(() =>
      createProviders({ remote: { api: 'openai-completions', baseUrl: 'http://127.0.0.1:9/v1', headers: { 'bad header': 'x' } } }, deps),
    );
    expect(error.issues.map((issue) => issue.path)).toEqual(['/models/providers/remote/headers']);
  });

  it('refuses to give the built-in id echo to another api', () => {
    const error = configError(() => createProviders({ echo: { api: 'command', command: ['true'] } }, deps));
    expect(error.issues[0]?.path).toBe('/models/providers/echo/api');
    expect(error.message).toContain('provider "echo"');
  });
});
