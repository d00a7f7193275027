import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/process.js';

/**
 * The README's way to run the CLI from anywhere: `npm pack` the repository and install the tarball
 * with `npm i -g` (here into a temp prefix, dependencies from the npm registry or its cache). The
 * installed command must run from its dist/ (Node strips no types under node_modules) in any
 * directory. `npm pack --ignore-scripts` packs the dist/ that `npm ci` built (its prepare script).
 */
const run = promisify(execFile);
const ROOT = join(BIN, '..', '..');
const BUILT = existsSync(join(ROOT, 'dist', 'main.js'));

describe.skipIf(!BUILT)('the npm pack tarball installed with npm i -g', { timeout: 240_000 }, () => {
  let dir: string;
  let command: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-pack-'));
    await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir, ROOT], { cwd: dir, timeout: 60_000 });
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const tarball = join(dir, `hookgate-${version}.tgz`);
    await run('npm', ['i', '-g', '--prefix', join(dir, 'prefix'), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: dir, timeout: 180_000 });
    command = join(dir, 'prefix', 'bin', 'hookgate');
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs from another directory: --version, and check of a config there', async () => {
    const elsewhere = mkdtempSync(join(dir, 'elsewhere-'));
    writeFileSync(join(elsewhere, 'hookgate.json5'), '{ hooks: { enabled: true, token: "t0ken-for-tests" } }');
    expect((await run(command, ['--version'], { cwd: elsewhere })).stdout).toMatch(/^hookgate \d+\.\d+\.\d+\n$/);
    const checked = await run(command, ['check'], { cwd: elsewhere });
    expect(checked.stdout).toContain(`config ${join(elsewhere, 'hookgate.json5')}: OK`);
  });
});
