import { copyFile, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { resolveModule } from '../../src/sandbox/resolve.js';
import { FIXTURES, input, LIMIT_TEST_MS, startRunner, type TestRunner } from './helpers.js';

let t: TestRunner;
let scratch: string;

beforeAll(async () => {
  t = startRunner({ limits: { timeoutMs: LIMIT_TEST_MS } }); // a runaway top level is stopped at the load limit
  scratch = await mkdtemp(path.join(tmpdir(), 'hookgate-sandbox-'));
});

afterAll(async () => {
  await t.close();
  await rm(scratch, { recursive: true, force: true });
});

async function loadError(module: string, exportName?: string): Promise<string> {
  try {
    await t.runner.load(exportName === undefined ? { module } : { module, export: exportName });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => issue.message).join('\n');
  }
  return 'loaded';
}

describe('module paths stay inside transformsDir', () => {
  it('refuses a path with ..', async () => {
    await expect(resolveModule(FIXTURES, '../outside.js')).rejects.toThrow(/may not contain "\.\."/);
    await expect(resolveModule(FIXTURES, 'load/../../outside.js')).rejects.toThrow(/may not contain "\.\."/);
  });

  it('refuses an absolute path, even one inside the directory', async () => {
    await expect(resolveModule(FIXTURES, path.join(FIXTURES, 'echo.js'))).rejects.toThrow(/not absolute/);
  });

  it('refuses a symlink that points outside', async () => {
    await symlink(path.join(FIXTURES, '..', 'outside.js'), path.join(scratch, 'escape.js'));
    await expect(resolveModule(scratch, 'escape.js')).rejects.toThrow(/outside hooks\.transformsDir \(symlink\)/);
  });

  it('accepts a symlink that stays inside', async () => {
    await copyFile(path.join(FIXTURES, 'echo.js'), path.join(scratch, 'real.js'));
    await symlink(path.join(scratch, 'real.js'), path.join(scratch, 'alias.js'));
    const root = await realpath(scratch);
    await expect(resolveModule(scratch, 'alias.js')).resolves.toEqual({ root, file: path.join(root, 'real.js') });
  });

  it('load() reports a containment problem as a ConfigError naming the module', async () => {
    expect(await loadError('../outside.js')).toBe('transform module "../outside.js": may not contain ".."');
  });

  it('refuses other extensions and missing files, naming the module', async () => {
    await expect(resolveModule(FIXTURES, 'echo.json')).rejects.toThrow(/"echo\.json": must end in \.js, \.mjs or \.ts/);
    await expect(resolveModule(FIXTURES, 'missing.js')).rejects.toThrow(/"missing\.js": file not found/);
  });
});

describe('load() checks the module before any request', () => {
  it('reports a syntax error with its location', async () => {
    expect(await loadError('load/syntax-error.js')).toMatch(/"load\/syntax-error\.js": .*\(load\/syntax-error\.js:2\)/);
  });

  it('reports a module without a callable export', async () => {
    expect(await loadError('load/no-function.js')).toMatch(/no default export and no "transform" export/);
    expect(await loadError('echo.js', 'missing')).toMatch(/export "missing" is not a function/);
  });

  it('falls back to the transform export and honours a named export', async () => {
    const fallback = await t.runner.load({ module: 'load/named-transform.mjs' });
    await expect(t.runner.run(fallback, input({}))).resolves.toEqual({ kind: 'override', value: { message: 'from transform export' } });
    const named = await t.runner.load({ module: 'load/named-transform.mjs', export: 'other' });
    await expect(t.runner.run(named, input({}))).resolves.toEqual({ kind: 'override', value: { message: 'from other export' } });
  });

  it('stops a runaway top level at the load limit (the time limit, at least 1 s)', async () => {
    expect(await loadError('load/top-level-loop.js')).toMatch(/top level did not finish within 1000 ms/);
  });

  it('reports a top level that throws, and top-level await', async () => {
    expect(await loadError('load/top-level-throw.js')).toMatch(/module top level threw: Error: refusing to start/);
    expect(await loadError('load/top-level-await.js')).toMatch(/Top-level await/);
  });

  it.each([
    ['load/node-import.js', 'node:fs'],
    ['load/bare-import.js', 'left-pad'],
    ['load/dynamic-import.js', 'node:fs'],
  ])('refuses %s because it imports %s', async (module, specifier) => {
    expect(await loadError(module)).toContain(`transform module "${module}": import "${specifier}" is not allowed`);
  });

  it('refuses a relative import that leaves the directory', async () => {
    expect(await loadError('load/escape-import.js')).toMatch(/outside\.js leaves hooks\.transformsDir/);
  });

  it('bundles a TypeScript module with its relative imports', async () => {
    const handle = await t.runner.load({ module: 'load/typed.ts' });
    await expect(t.runner.run(handle, input({ word: 'hi' }))).resolves.toEqual({ kind: 'override', value: { message: 'HI!' } });
  });

  it('refuses an examples export that is not a list', async () => {
    expect(await loadError('load/bad-examples.js')).toMatch(/"examples" export must be an array/);
  });

  it('reuses the handle while the file is unchanged and reloads a changed file', async () => {
    const dir = await mkdtemp(path.join(scratch, 'versions-'));
    const file = path.join(dir, 'v.js');
    await writeFile(file, "export default () => ({ message: 'one' });\n");
    const own = startRunner({ dir, limits: { workers: 1 } });
    try {
      const first = await own.runner.load({ module: 'v.js' });
      expect(await own.runner.load({ module: 'v.js' })).toBe(first);
      await writeFile(file, "export default () => ({ message: 'two, longer' });\n");
      const second = await own.runner.load({ module: 'v.js' });
      expect(second.moduleKey).not.toBe(first.moduleKey);
      await expect(own.runner.run(second, input({}))).resolves.toEqual({ kind: 'override', value: { message: 'two, longer' } });
    } finally {
      await own.close();
    }
  });
});
