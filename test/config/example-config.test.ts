import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import JSON5 from 'json5';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { configPathFrom, loadConfigFile } from '../../src/config/load.js';
import { runCaptured } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/hookgate.json5');

/** A fresh directory laid out like the project root: the example copied to ./hookgate.json5 next to ./transforms. */
function projectLikeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-example-'));
  cpSync(EXAMPLE, join(dir, 'hookgate.json5'));
  cpSync(join(ROOT, 'transforms'), join(dir, 'transforms'), { recursive: true });
  return dir;
}

describe('examples/hookgate.json5 copied to ./hookgate.json5 (the default config path)', () => {
  let dir: string;
  beforeEach(() => {
    dir = projectLikeDir();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves its relative paths against the directory of the config file', async () => {
    const config = await loadConfigFile(configPathFrom(undefined, {}, dir), {});
    expect(config.configDir).toBe(dir);
    expect(config.hooks.transformsDir).toBe(join(dir, 'transforms'));
    expect(config.storage.path).toBe(join(dir, 'data', 'hookgate.sqlite'));
  });

  it('passes `hookgate check` run from that directory without --config, transforms and their examples included', async () => {
    let out = '';
    let err = '';
    const code = await runCli(['check'], { stdout: (text) => void (out += text), stderr: (text) => void (err += text), env: {}, cwd: dir });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/examples passed/);
  });

  it('resolves against the config file, not the working directory', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'hookgate-cwd-'));
    try {
      const config = await loadConfigFile(configPathFrom(join(dir, 'hookgate.json5'), {}, elsewhere), {});
      expect(config.hooks.transformsDir).toBe(join(dir, 'transforms'));
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('the example with the github preset added, as docs/presets.md says', () => {
  let dir: string;
  const env = { GITHUB_WEBHOOK_SECRET: 'example-github-secret' };
  beforeEach(() => {
    dir = projectLikeDir();
    const config = JSON5.parse(readFileSync(join(dir, 'hookgate.json5'), 'utf8')) as { hooks: { presets: unknown[] } };
    config.hooks.presets.push({ name: 'github', secret: '\${GITHUB_WEBHOOK_SECRET}' });
    writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify(config));
    writeFileSync(join(dir, 'delivery.json'), readFileSync(join(ROOT, 'test/fixtures/corpora/github/payloads/pull_request.opened.json')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the preset its path: check warns of nothing in the way, sign signs for the preset', async () => {
    const check = await runCaptured(['check'], { env, cwd: dir });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).not.toMatch(/never reached|takes the hook token|comes first/);
    const sign = await runCaptured(['sign', 'github', '--payload', 'delivery.json'], { env, cwd: dir });
    expect(sign.stderr).toBe('');
    expect(sign.code).toBe(0);
    expect(sign.stdout).toMatch(/^# mapping "preset:github\/pull_request", scheme github/);
  });
});

describe('npm start creates ./hookgate.json5 from the example on the first run', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-start-'));
    cpSync(EXAMPLE, join(dir, 'examples', 'hookgate.json5'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the example when there is no config, and never overwrites one', async () => {
    const { ensureDefaultConfig } = (await import(pathToFileURL(join(ROOT, 'scripts/default-config.mjs')).href)) as {
      ensureDefaultConfig: (root: URL, env: Record<string, string>) => string;
    };
    const root = pathToFileURL(`${dir}/`);
    expect(ensureDefaultConfig(root, {})).toBe('created');
    expect(readFileSync(join(dir, 'hookgate.json5'), 'utf8')).toBe(readFileSync(EXAMPLE, 'utf8'));
    writeFileSync(join(dir, 'hookgate.json5'), '{ mine: true }');
    expect(ensureDefaultConfig(root, {})).toBe('exists');
    expect(readFileSync(join(dir, 'hookgate.json5'), 'utf8')).toBe('{ mine: true }');
  });

  it('does nothing when HOOKGATE_CONFIG names the config', async () => {
    const { ensureDefaultConfig } = (await import(pathToFileURL(join(ROOT, 'scripts/default-config.mjs')).href)) as {
      ensureDefaultConfig: (root: URL, env: Record<string, string>) => string;
    };
    expect(ensureDefaultConfig(pathToFileURL(`${dir}/`), { HOOKGATE_CONFIG: '/etc/hookgate.json5' })).toBe('skipped');
    expect(existsSync(join(dir, 'hookgate.json5'))).toBe(false);
  });
});
