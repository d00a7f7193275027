import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSON5 from 'json5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText, type ResolvedConfig } from '../../src/config/load.js';
import { createActionBuilder } from '../../src/actions/build.js';
import { createModelPolicy } from '../../src/actions/models.js';
import { createMappingEngine, type MappingEngine } from '../../src/mapping/engine.js';
import { splitModelRef } from '../../src/runtime/provider-call.js';
import { silentLogger } from '../../src/log.js';
import { createTransformRunner, type SandboxTransformRunner } from '../../src/sandbox/index.js';
import { actionsOf, request } from './support.js';
import { modelEntries } from '../../src/actions/models.js';

/**
 * Every ```json5 block of README.md and docs/*.md is a configuration example that must load: a
 * whole config (`{ models: … }`), a top-level section (`hooks: { … }`, `channels: { … }`), or one
 * or more mapping records. Each is validated by the real loader (schema, cross-field rules,
 * `${VAR}` substitution) with the repository root as its directory, its mappings compiled by the
 * real engine with the real sandbox loading the named modules from transforms/. A block that is
 * deliberately not loadable on its own carries `<!-- docs-example: fragment (why) -->` on the
 * line before it and is skipped by name.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TRANSFORMS = join(ROOT, 'transforms');
/** The marker must say why the block is a fragment. */
const FRAGMENT = /<!-- docs-example: fragment \([^)]+\) -->\s*$/;
const CONFIG_SECTIONS = new Set(['gateway', 'hooks', 'agents', 'models', 'channels', 'targets', 'storage', 'logging']);

interface DocBlock {
  where: string;
  text: string;
  fragment: boolean;
}

function docBlocks(): DocBlock[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  return files.flatMap((file) => {
    const doc = readFileSync(join(ROOT, file), 'utf8');
    return [...doc.matchAll(/```json5\n([\s\S]*?)```/g)].map((match) => {
      const before = doc.slice(0, match.index);
      return { where: `${file}:${before.split('\n').length}`, text: match[1] ?? '', fragment: FRAGMENT.test(before) };
    });
  });
}

/** The block as a whole config object: sections wrapped in braces, mapping records in hooks.mappings. */
function asConfig(text: string): Record<string, unknown> {
  const body = text.replace(/^\s*(\/\/[^\n]*\n\s*)*/, '');
  if (/^[A-Za-z_]\w*\s*:/.test(body)) return JSON5.parse(`{${text}}`) as Record<string, unknown>;
  const items = JSON5.parse(`[${text}]`) as unknown[];
  const only = items[0] as Record<string, unknown> | undefined;
  if (items.length === 1 && only !== undefined && Object.keys(only).every((key) => CONFIG_SECTIONS.has(key))) return only;
  return { hooks: { mappings: items } };
}

/** Puts in what the fragment leaves to the rest of a real file: the hook token, the transforms directory. */
function completed(config: Record<string, unknown>): Record<string, unknown> {
  if (config['hooks'] === undefined) return config;
  return { ...config, hooks: { enabled: true, token: 'docs-example-hook-token', transformsDir: TRANSFORMS, ...(config['hooks'] as object) } };
}

/** Every `${NAME}` a block references, set to a placeholder of its own (two secrets are never one), as the environment would. */
function envFor(text: string): NodeJS.ProcessEnv {
  return Object.fromEntries([...text.matchAll(/\$\{([A-Za-z_]\w*)/g)].map((match) => [match[1], `placeholder-from-env-${match[1]}`]));
}

/** A static `model` must be a provider/model id or an alias the same config defines. */
function modelProblems(config: ResolvedConfig): string[] {
  const aliases = new Set(modelEntries(config.agents.defaults.models).flatMap((entry) => (entry.alias === undefined ? [] : [entry.alias])));
  return config.hooks.mappings.flatMap((mapping) => {
    const model = mapping.model;
    if (model === undefined || model.includes('{{') || aliases.has(model) || splitModelRef(model) !== undefined) return [];
    return [`mapping ${mapping.id ?? JSON.stringify(mapping.match)}: model "${model}" is neither provider/model nor an alias defined here`];
  });
}

const BLOCKS = docBlocks();
let runner: SandboxTransformRunner;

async function engineFor(config: ResolvedConfig): Promise<MappingEngine> {
  const builder = createActionBuilder({ models: createModelPolicy(config.agents.defaults) });
  return createMappingEngine({ hooks: config.hooks, builder, transforms: runner, logger: silentLogger() });
}

function load(block: DocBlock): ResolvedConfig {
  const config = completed(asConfig(block.text));
  return parseConfigText(JSON.stringify(config), { configDir: ROOT, env: envFor(block.text) });
}

function documented(file: string, id: string): DocBlock {
  const block = BLOCKS.find((candidate) => candidate.where.startsWith(file) && new RegExp(`id: "${id}"`).test(candidate.text));
  if (block === undefined) throw new Error(`no example with id "${id}" in ${file}`);
  return block;
}

beforeAll(() => {
  runner = createTransformRunner({ transformsDir: TRANSFORMS, limits: { memoryMb: 32, timeoutMs: 10000, workers: 1 }, logger: silentLogger() });
});
afterAll(async () => {
  await runner.close();
});

describe('configuration examples in the docs', () => {
  it('are found (mappings, channels, providers, operations, transforms)', () => {
    const loaded = BLOCKS.filter((block) => !block.fragment);
    expect(loaded.length).toBeGreaterThanOrEqual(20);
    for (const file of ['mappings', 'channels', 'providers', 'operations', 'transforms']) {
      expect(loaded.some((block) => block.where.startsWith(`docs/${file}.md:`)), file).toBe(true);
    }
  });

  for (const block of BLOCKS) {
    it.skipIf(block.fragment)(`${block.where} loads, and its mappings compile`, async () => {
      const config = load(block);
      expect(modelProblems(config)).toEqual([]);
      if (config.hooks.mappings.length > 0 || config.hooks.presets.length > 0) {
        const engine = await engineFor(config);
        expect(engine.mappingCount).toBeGreaterThan(0);
      }
    });
  }

  it('render the GitHub example as documented', async () => {
    const config = load(documented('docs/mappings.md', 'github-push'));
    const engine = await engineFor(config);
    const payload = { repository: { name: 'hookgate', full_name: 'acme/hookgate' }, sender: { login: 'ada' }, commits: [{ message: 'fix: things', author: { name: 'Ada' } }] };
    const [action] = (await actionsOf(engine, request('github', payload, { headers: { 'x-github-event': 'push' } }))).actions;
    expect(action).toMatchObject({ name: 'GitHub hookgate', sessionKey: 'hook:github:acme/hookgate', message: 'push on acme/hookgate by ada:\n- fix: things (Ada)\n', channel: 'slack' });
  });

  it('runs the Stripe example through the shipped transform as documented', async () => {
    const config = load(documented('docs/mappings.md', 'stripe'));
    const engine = await engineFor(config);
    const failed = { type: 'charge.failed', data: { object: { amount: 5000, currency: 'usd', failure_message: 'Your card was declined.' } } };
    const [run] = (await actionsOf(engine, request('stripe', failed))).actions;
    expect(run).toMatchObject({ kind: 'agent', name: 'Stripe', model: 'openai/gpt-4o-mini', thinking: 'low', message: expect.stringContaining('A charge of 50.00 USD') });
    const paid = { type: 'payment_intent.succeeded', data: { object: { amount: 1299, currency: 'eur', receipt_email: 'ada@example.com' } } };
    expect((await actionsOf(engine, request('stripe', paid))).actions[0]).toMatchObject({ kind: 'wake', text: 'Stripe: payment of 12.99 EUR from ada@example.com succeeded.' });
    expect(await engine.resolve(request('stripe', { type: 'customer.created', data: { object: { currency: 'usd' } } }))).toMatchObject({ kind: 'skip' });
  });
});
