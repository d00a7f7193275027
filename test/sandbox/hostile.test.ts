import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransformHandle } from '../../src/sandbox/index.js';
import { digestForLog } from '../../src/log-digest.js';
import { codeOf, input, isAlive, LIMIT_TEST_MS, startRunner, type TestRunner } from './helpers.js';

/** Runners: `t` with a time limit no test meets, `limited` for the tests about the time limit. */
let t: TestRunner;
let limited: TestRunner;
const echo = new Map<TestRunner, TransformHandle>();

beforeAll(async () => {
  t = startRunner();
  limited = startRunner({ limits: { timeoutMs: LIMIT_TEST_MS } });
  for (const runner of [t, limited]) echo.set(runner, await runner.runner.load({ module: 'echo.js' }));
});

afterAll(async () => {
  await t.close();
  await limited.close();
});

async function expectEchoWorks(on: TestRunner = t): Promise<void> {
  await expect(on.runner.run(echo.get(on)!, input({ n: 7 }))).resolves.toEqual({ kind: 'override', value: { message: 'echo 7', name: 'Echo' } });
}

function lastFailure(on: TestRunner = t): Record<string, unknown> | undefined {
  return on.logs.filter((line) => line['event'] === 'transform.failed').at(-1);
}

async function runHostile(module: string, payload: unknown = {}, exportName?: string, on: TestRunner = t): Promise<string> {
  const handle = await on.runner.load(exportName === undefined ? { module } : { module, export: exportName });
  return codeOf(on.runner.run(handle, input(payload)));
}

describe('hostile transforms cost only their own request', () => {
  it('an endless loop answers TRANSFORM_UNAVAILABLE at the time limit and keeps the worker', async () => {
    const before = limited.runner.workerPids();
    expect(await runHostile('spin.js', {}, undefined, limited)).toBe('TRANSFORM_UNAVAILABLE');
    expect(lastFailure(limited)).toMatchObject({ module: 'spin.js', reason: 'timeout' });
    await expectEchoWorks(limited);
    expect(limited.runner.workerPids()).toEqual(before);
    expect(limited.logs.filter((l) => l['event'] === 'sandbox.killed' || l['event'] === 'sandbox.retire')).toEqual([]);
  });

  it('a promise that never resolves answers TRANSFORM_UNAVAILABLE', async () => {
    expect(await runHostile('never.js', {}, undefined, limited)).toBe('TRANSFORM_UNAVAILABLE');
    expect(lastFailure(limited)).toMatchObject({ module: 'never.js', reason: 'timeout' });
    await expectEchoWorks(limited);
  });

  it('a memory bomb hits the isolate memory limit and the module is usable again afterwards', async () => {
    expect(await runHostile('memory-bomb.js')).toBe('TRANSFORM_UNAVAILABLE');
    expect(lastFailure()).toMatchObject({ module: 'memory-bomb.js', reason: 'memory' });
    await expectEchoWorks();
    // The isolate was disposed; the next call rebuilds it from the cached bundle and fails the same way.
    expect(await runHostile('memory-bomb.js')).toBe('TRANSFORM_UNAVAILABLE');
  });

  it.each([
    ['array-fill.js', 'new Array(1e8).fill(1.5)'],
    ['bigint.js', 'BigInt("1".repeat(1e7))'],
  ])('%s (%s) outlives the isolate timeout, so its worker is killed and replaced', async (module) => {
    const before = limited.runner.workerPids();
    expect(await runHostile(module, {}, undefined, limited)).toBe('TRANSFORM_UNAVAILABLE');
    expect(lastFailure(limited)).toMatchObject({ module, reason: 'wedged' });
    await expectEchoWorks(limited);
    await expect.poll(() => before.filter(isAlive).length, { timeout: 15_000 }).toBe(before.length - 1);
    expect(limited.runner.workerPids()).toHaveLength(before.length); // replaced
  });

  it('a thrown object whose message getter loops answers TRANSFORM_FAILED without running the getter', async () => {
    expect(await runHostile('getter-loop.js')).toBe('TRANSFORM_FAILED');
    expect(lastFailure()).toMatchObject({ reason: 'threw', detail: digestForLog('threw a non-Error value') });
    await expectEchoWorks();
  });

  it('deep recursion answers TRANSFORM_FAILED', async () => {
    expect(await runHostile('recursion.js')).toBe('TRANSFORM_FAILED');
    expect(lastFailure()).toMatchObject({ reason: 'threw', detail: digestForLog('RangeError: Maximum call stack size exceeded') });
    await expectEchoWorks();
  });

  it('a 50 MB string result is refused inside the isolate as too large', async () => {
    expect(await runHostile('hostile-results.js', {}, 'hugeString')).toBe('TRANSFORM_FAILED');
    expect(lastFailure()).toMatchObject({ reason: 'too-large' });
    await expectEchoWorks();
  });

  it.each([
    ['fn', 'returned a function'],
    ['symbol', 'returned a symbol'],
    ['cycle', 'field "self" is a object'],
    ['throwingProxy', 'result could not be read: Error: trap'],
    ['nested', 'field "extra" is a object'],
  ])('a returned %s is refused as TRANSFORM_FAILED (%s)', async (exportName, detail) => {
    const handle = await t.runner.load({ module: 'hostile-results.js', export: exportName });
    const error = (await t.runner.run(handle, input({})).catch((e: unknown) => e)) as { code?: string; cause?: Error };
    expect(error).toMatchObject({ code: 'TRANSFORM_FAILED' });
    // The text is the error's cause (what `hookgate try` shows); the log has its digest only.
    expect(String(error?.cause?.message)).toContain(detail);
    await expectEchoWorks();
  });

  it('a proxy result is read inside the isolate and only its copied data leaves', async () => {
    const handle = await t.runner.load({ module: 'hostile-results.js', export: 'dataProxy' });
    await expect(t.runner.run(handle, input({}))).resolves.toEqual({ kind: 'override', value: { message: 'from proxy' } });
  });

  it('reaching for process through the Function constructor fails: there is no process', async () => {
    expect(await runHostile('escape.js')).toBe('TRANSFORM_FAILED');
    expect(lastFailure()).toMatchObject({ detail: digestForLog('ReferenceError: process is not defined') });
    await expectEchoWorks();
  });

  it('a computed import() is refused at run time', async () => {
    expect(await runHostile('dynamic-import-runtime.js')).toBe('TRANSFORM_FAILED');
    await expectEchoWorks();
  });

  it('Atomics.wait is not available to block the isolate', async () => {
    expect(await runHostile('atomics.js')).toBe('TRANSFORM_FAILED');
    expect(lastFailure()).toMatchObject({ detail: digestForLog('ReferenceError: Atomics is not defined') });
    await expectEchoWorks();
  });

  it('a catastrophic-backtracking regex on payload text is stopped at the time limit', async () => {
    expect(await runHostile('redos.js', { text: `${'a'.repeat(40)}!` }, undefined, limited)).toBe('TRANSFORM_UNAVAILABLE');
    expect(lastFailure(limited)).toMatchObject({ module: 'redos.js', reason: 'timeout' });
    await expectEchoWorks(limited);
  });

  it('failure logs carry module, reason and duration but never the payload', async () => {
    const handle = await t.runner.load({ module: 'outcomes.js', export: 'throws' });
    expect(await codeOf(t.runner.run(handle, input({ secret: 'hunter2' }, { headers: { 'x-secret': 'hunter3' } })))).toBe('TRANSFORM_FAILED');
    const line = lastFailure();
    expect(line).toMatchObject({ event: 'transform.failed', module: 'outcomes.js#throws', reason: 'threw', msg: 'transform outcomes.js#throws failed: threw' });
    expect(typeof line?.['durationMs']).toBe('number');
    expect(line?.['detail']).toEqual(digestForLog('Error: cannot handle this event'));
    expect(JSON.stringify(t.logs)).not.toContain('hunter2');
    expect(JSON.stringify(t.logs)).not.toContain('hunter3');
  });
});
