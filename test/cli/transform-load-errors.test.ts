import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';

/** A module that does not load stops `serve` and fails `check`, naming the mapping and the file once. */
describe('a transform module that fails to load at start-up', () => {
  let dir: string;
  let out: string;
  let err: string;
  const io = () => ({ stdout: (text: string) => void (out += text), stderr: (text: string) => void (err += text), env: {}, cwd: dir });
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookgate-load-')));
    mkdirSync(join(dir, 'transforms'));
    writeFileSync(join(dir, 'transforms', 'broken.js'), "export default () => ({ text: 'x' ;\n");
    const mapping = (id: string, module: string) => `{ id: "${id}", match: { path: "${id}" }, action: "wake", transform: { module: "${module}" } }`;
    writeFileSync(
      join(dir, 'hookgate.json5'),
      `{ gateway: { port: 0 }, hooks: { enabled: true, token: "hook-token-0123456789", transformsDir: "./transforms", transformLimits: { workers: 1 },
         mappings: [${mapping('a', 'broken.js')}, ${mapping('b', 'missing.js')}] }, storage: { path: "./store.sqlite" } }`,
    );
    out = '';
    err = '';
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const problems = () =>
    [
      `  /hooks/mappings/0/transform: mapping "a": transform "broken.js" (${dir}/transforms/broken.js) cannot be loaded: Expected "}" but found ";" (broken.js:1)`,
      `  /hooks/mappings/1/transform: mapping "b": transform "missing.js" (${dir}/transforms/missing.js) cannot be loaded: file not found in hooks.transformsDir`,
    ].join('\n');

  it('serve exits 1 before listening with each problem once', async () => {
    const code = await runCli(['serve', '--config', join(dir, 'hookgate.json5')], io());
    expect(code).toBe(1);
    expect(err).toBe(`hookgate: configuration ${join(dir, 'hookgate.json5')} has 2 problems:\n${problems()}\n`);
  });

  it('check exits 1 with the same lines', async () => {
    const code = await runCli(['check', '--config', join(dir, 'hookgate.json5')], io());
    expect(code).toBe(1);
    expect(err).toBe(`configuration ${join(dir, 'hookgate.json5')} has problems:\n${problems()}\n`);
  });
});
