import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';

const PROJECT_CACHE = fileURLToPath(new URL('../../node_modules/.cache/hookgate-compile/', import.meta.url));

// bin/hookgate.js turns on Node's compile cache before it loads the build (docs/performance.md,
// "Start-up"): in the project's node_modules/.cache, or where NODE_COMPILE_CACHE says.
describe('hookgate and Node\'s compile cache', { timeout: 60_000 }, () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function scratch(): string {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-compile-cache-'));
    dirs.push(dir);
    return dir;
  }

  function envWith(cache: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cache };
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    return env;
  }

  it('writes the compiled code of the modules a command loaded into node_modules/.cache/hookgate-compile', async () => {
    // Removing it is safe even while other tests run hookgate: a process that finds no cache compiles.
    rmSync(PROJECT_CACHE, { recursive: true, force: true });
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env['NODE_COMPILE_CACHE'];
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    const result = await runBin(['help'], { env });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('usage: hookgate <command>');
    // Node keeps one subdirectory per Node version and V8 flags, holding one file per module compiled.
    const versions = readdirSync(PROJECT_CACHE);
    expect(versions.length).toBeGreaterThan(0);
    expect(readdirSync(join(PROJECT_CACHE, versions[0] ?? '')).length).toBeGreaterThan(0);
  });

  it('follows NODE_COMPILE_CACHE', async () => {
    const cache = join(scratch(), 'cache');
    const result = await runBin(['help'], { env: envWith(cache) });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(cache).length).toBe(1);
  });

  it('runs as usual, without a word, when the cache directory cannot be created (a read-only install)', async () => {
    const file = join(scratch(), 'not-a-directory');
    writeFileSync(file, 'a file where the cache directory would go\n');
    const result = await runBin(['help'], { env: envWith(join(file, 'cache')) });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('usage: hookgate <command>');
  });
});
