import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCaptured } from '../helpers/cli.js';

/** `hookgate check` must catch what loading the config accepts but every run would trip over. */
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-check-runtime-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function agentMapping(fields: string): string {
  return `{ id: "m", match: { path: "m" }, messageTemplate: "hi", ${fields} }`;
}

/** A valid config around the given parts; the default route goes to the log channel. */
async function check(parts: { mappings?: string[]; defaults?: string; top?: string }) {
  const config = `{
    hooks: { enabled: true, token: "hook-token", transformsDir: "./transforms", mappings: [${(parts.mappings ?? []).join(',')}] },
    agents: { defaults: { delivery: { channel: "log" }, ${parts.defaults ?? ''} } },
    storage: { path: ${JSON.stringify(join(dir, 'store.sqlite'))} },
    ${parts.top ?? ''}
  }`;
  mkdirSync(join(dir, 'transforms'), { recursive: true });
  writeFileSync(join(dir, 'hookgate.json5'), config);
  return runCaptured(['check', '--config', join(dir, 'hookgate.json5')], { cwd: dir });
}

describe('hookgate check: models', () => {
  it('refuses a mapping model that is neither a provider/model id nor an alias (model: "fast")', async () => {
    const result = await check({ mappings: [agentMapping('model: "fast"')] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/hooks/mappings/0/model: mapping "m": model "fast" is neither a provider/model id (e.g. echo/echo) nor an alias');
  });

  it('accepts an alias of agents.defaults.models and resolves it as runs do', async () => {
    const result = await check({ mappings: [agentMapping('model: "fast"')], defaults: 'models: [{ id: "echo/echo", alias: "fast" }]' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('refuses a model outside agents.defaults.models once, with its path', async () => {
    const result = await check({ mappings: [agentMapping('model: "echo/other"')], defaults: 'models: ["echo/echo"]' });
    expect(result.code).toBe(1);
    expect(result.stderr.match(/\/hooks\/mappings\/0\/model/g)).toHaveLength(1);
    expect(result.stderr).toContain('not in agents.defaults.models');
  });

  it('refuses a model whose provider is not configured', async () => {
    const result = await check({ mappings: [agentMapping('model: "openai/gpt-5"')] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('model "openai/gpt-5" names provider "openai", which is not configured (models.providers has: echo)');
  });

  it('refuses a default model the runtime could not call', async () => {
    const result = await check({ defaults: 'model: "fast"' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/agents/defaults/model: model "fast" is neither a provider/model id');
  });

  it('leaves a templated model to the request', async () => {
    const result = await check({ mappings: [agentMapping('model: "{{payload.model}}"')] });
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('hookgate check: channels', () => {
  it('warns about a mapping channel that is not configured, and still exits 0', async () => {
    const result = await check({ mappings: [agentMapping('channel: "telegram"')] });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('warning: /hooks/mappings/0/channel: mapping "m": channel "telegram" is not configured');
  });

  it('does not warn for a configured channel, nor for a mapping that does not deliver', async () => {
    const result = await check({ mappings: [agentMapping('channel: "log"'), agentMapping('id: "quiet", match: { path: "q" }, channel: "slack", deliver: false')] });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('warning');
  });

  it('warns when "last" would go to the unconfigured fallback before any delivery', async () => {
    writeFileSync(join(dir, 'bare.json5'), `{ hooks: { enabled: true, token: "t" }, storage: { path: ${JSON.stringify(join(dir, 's.sqlite'))} } }`);
    const result = await runCaptured(['check', '--config', join(dir, 'bare.json5')], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('warning: /agents/defaults/delivery: not set, so deliveries to "last" (the default channel) go to whatsapp');
  });
});

describe('hookgate check: transforms', () => {
  it('fails when a used module\'s examples fail, naming the example', async () => {
    mkdirSync(join(dir, 'transforms'));
    writeFileSync(
      join(dir, 'transforms', 'shout.js'),
      'export default ({ payload }) => ({ message: String(payload.text).toUpperCase() });\n' +
        'export const examples = [{ name: "shouts", input: { payload: { text: "hi" } }, expect: { message: "HI" } }, ' +
        '{ name: "whispers", input: { payload: { text: "hi" } }, expect: { message: "hi" } }];\n',
    );
    const result = await check({ mappings: ['{ id: "s", match: { path: "s" }, transform: { module: "shout.js" } }'] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('shout.js: example whispers FAILED');
    expect(result.stderr).not.toContain('example shouts');
  });

  it('lists the modules that no mapping names or imports, as notes', async () => {
    const transforms = join(dir, 'transforms');
    mkdirSync(join(transforms, 'lib'), { recursive: true });
    writeFileSync(join(transforms, 'used.ts'), 'import { label } from "./lib/label.js";\nexport default () => ({ message: label("x") });\n');
    writeFileSync(join(transforms, 'lib', 'label.js'), 'export const label = (text) => `[${text}]`;\n');
    writeFileSync(join(transforms, 'forgotten.mjs'), 'export default () => undefined;\n');
    writeFileSync(join(transforms, 'lib', 'old.js'), 'export default () => undefined;\n');
    writeFileSync(join(transforms, 'types.d.ts'), 'export type X = string;\n');
    writeFileSync(join(transforms, 'README.md'), 'not a module\n');
    const result = await check({ mappings: ['{ id: "u", match: { path: "u" }, transform: { module: "used.ts" } }'] });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const notes = result.stdout.split('\n').filter((line) => line.startsWith('note:'));
    expect(notes).toEqual([
      'note: transform forgotten.mjs is used by no mapping (nothing runs it until a mapping names it)',
      `note: transform ${join('lib', 'old.js')} is used by no mapping (nothing runs it until a mapping names it)`,
    ]);
  });
});
