import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookError } from '../../src/errors.js';
import { input, LIMIT_TEST_MS, startRunner, type TestRunner } from './helpers.js';

let t: TestRunner;

beforeAll(() => {
  t = startRunner();
});

afterAll(async () => {
  await t.close();
});

async function runExport(name: string, payload: unknown = {}, path = ''): Promise<unknown> {
  const handle = await t.runner.load({ module: 'outcomes.js', export: name });
  return t.runner.run(handle, input(payload, { path }));
}

describe('what a transform returns decides the outcome', () => {
  it('an object becomes an override', async () => {
    await expect(runExport('override', { text: 'hi' })).resolves.toEqual({
      kind: 'override',
      value: { message: 'hi', action: 'agent', deliver: false, timeoutSeconds: 30 },
    });
  });

  it('an async transform is awaited', async () => {
    await expect(runExport('asyncOverride', {}, 'ci')).resolves.toEqual({ kind: 'override', value: { text: 'async ci', wakeMode: 'next-heartbeat' } });
  });

  it('input.url is a URL (pathname, search, searchParams) whose string form is the path and query', async () => {
    const handle = await t.runner.load({ module: 'outcomes.js', export: 'urlParts' });
    const result = await t.runner.run(handle, input({}, { url: '/hooks/x?a=1%202&b=p&b=q+r' }));
    expect(result).toEqual({ kind: 'override', value: { message: 'function /hooks/x ?a=1%202&b=p&b=q+r 1 2 p|q r  /hooks/x?a=1%202&b=p&b=q+r', name: '/hooks/x?a=1%202&b=p&b=q+r' } });
  });

  it('null means skip and undefined means unchanged', async () => {
    await expect(runExport('skip')).resolves.toEqual({ kind: 'skip' });
    await expect(runExport('unchanged')).resolves.toEqual({ kind: 'unchanged' });
  });

  it.each(['unsafe', 'wrongType', 'badEnum', 'string', 'array', 'throws'])(
    'the %s export fails with TRANSFORM_FAILED and a fixed message',
    async (name) => {
      const error = await runExport(name, { secret: 'x' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HookError);
      expect(error).toMatchObject({ code: 'TRANSFORM_FAILED', message: 'hook mapping failed', status: 500 });
    },
  );

  it('a transform may not opt out of the envelope', async () => {
    const error = (await runExport('unsafe').catch((e: unknown) => e)) as HookError;
    expect(error).toMatchObject({ code: 'TRANSFORM_FAILED' });
    expect(String((error.cause as Error | undefined)?.message)).toMatch(/invalid override \/allowUnsafeExternalContent: not allowed in a transform result/);
  });

  it('a limit failure is TRANSFORM_UNAVAILABLE with Retry-After 1', async () => {
    const limited = startRunner({ limits: { workers: 1, timeoutMs: LIMIT_TEST_MS } });
    try {
      const handle = await limited.runner.load({ module: 'spin.js' });
      await expect(limited.runner.run(handle, input({}))).rejects.toMatchObject({
        code: 'TRANSFORM_UNAVAILABLE',
        status: 503,
        message: 'transform unavailable, retry later',
        retryAfterSeconds: 1,
      });
    } finally {
      await limited.close();
    }
  });
});

describe('runExamples', () => {
  it('runs every example and says which pass and why the others fail', async () => {
    const handle = await t.runner.load({ module: 'with-examples.js' });
    await expect(t.runner.runExamples(handle)).resolves.toEqual([
      { name: 'greets', ok: true },
      { name: 'skips', ok: true },
      { name: 'example 3', ok: true },
      { name: 'wrong expectation', ok: false, detail: 'expected {"message":"hello alice","name":"Greeter"}, got {"message":"hello bob","name":"Greeter"}' },
      { name: 'wrong kind', ok: false, detail: 'expected override, got skip' },
      { name: 'throws', ok: false, detail: 'threw: Error: boom' },
    ]);
  });

  it('a module without examples has none to run', async () => {
    const handle = await t.runner.load({ module: 'load/typed.ts' });
    await expect(t.runner.runExamples(handle)).resolves.toEqual([]);
  });
});
