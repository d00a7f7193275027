import { describe, expect, it } from 'vitest';
import { codeOf, input, isAlive, LIMIT_TEST_MS, startRunner } from './helpers.js';

describe('the worker pool under load and failure', () => {
  it('calls of a module that hold every worker do not hold up another module', async () => {
    // never.js calls stay in flight until the (generous) time limit: every worker has as many of
    // them as it takes and more wait, without burning CPU. None can end during the echo calls, so
    // echo being answered meanwhile is not a race with the clock.
    const t = startRunner({ limits: { workers: 2 } });
    try {
      const never = await t.runner.load({ module: 'never.js' });
      const echo = await t.runner.load({ module: 'echo.js' });
      let neverSettled = 0;
      const neverCalls = Array.from({ length: 50 }, () => codeOf(t.runner.run(never, input({}))).finally(() => (neverSettled += 1)));
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < 10; i++) {
        await expect(t.runner.run(echo, input({ n: i }))).resolves.toMatchObject({ kind: 'override', value: { message: `echo ${i}` } });
      }
      expect(neverSettled).toBe(0);
      await t.runner.close();
      // Closing answers the calls that were still in flight or waiting: nothing hangs.
      expect(new Set(await Promise.all(neverCalls))).toEqual(new Set(['TRANSFORM_UNAVAILABLE']));
    } finally {
      await t.close();
    }
  });

  it('fifty concurrent calls to a slow transform fail at the time limit or waiting for a worker, all 503', async () => {
    const t = startRunner({ limits: { workers: 2, timeoutMs: LIMIT_TEST_MS } });
    try {
      const slow = await t.runner.load({ module: 'slow.js' });
      const codes = await Promise.all(Array.from({ length: 50 }, () => codeOf(t.runner.run(slow, input({})))));
      expect(new Set(codes)).toEqual(new Set(['TRANSFORM_UNAVAILABLE']));
      const reasons = new Set(t.logs.filter((l) => l['event'] === 'transform.failed').map((l) => l['reason']));
      expect([...reasons].sort()).toEqual(['busy', 'timeout']);
    } finally {
      await t.close();
    }
  });

  it('a killed worker costs only the calls it was running; the other worker answers and a replacement starts', async () => {
    const t = startRunner({ limits: { workers: 2, timeoutMs: 2000 }, growAfterMs: 0 });
    try {
      const busy = await t.runner.load({ module: 'busy.js' });
      const echo = await t.runner.load({ module: 'echo.js' });
      const [victim] = t.runner.workerPids();
      // Four calls of a module fill the first worker (MODULE_PIPELINE_DEPTH); the fifth starts the second and runs there.
      const calls = Array.from({ length: 5 }, () => t.runner.run(busy, input({ ms: 400 })).then(() => 'ok', (e: { code: string }) => e.code));
      expect(t.runner.workerPids()).toHaveLength(2);
      await new Promise((resolve) => setImmediate(resolve));
      process.kill(victim!, 'SIGKILL');
      expect((await Promise.all(calls)).sort()).toEqual([...Array(4).fill('TRANSFORM_UNAVAILABLE'), 'ok']);
      expect(t.logs.filter((l) => l['event'] === 'transform.failed').map((l) => l['reason'])).toEqual(Array(4).fill('lost'));
      await expect(t.runner.run(echo, input({ n: 1 }))).resolves.toMatchObject({ kind: 'override' });
      await expect.poll(() => t.runner.workerPids().length, { timeout: 15_000 }).toBe(2);
      expect(t.runner.workerPids()).not.toContain(victim);
      expect(isAlive(victim!)).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('calls of one module sent ahead to one worker run in turn, each with its whole time limit', async () => {
    const t = startRunner({ limits: { workers: 1, timeoutMs: 1500 } });
    try {
      const busy = await t.runner.load({ module: 'busy.js' });
      // Four calls of 600 ms each: 2.4 s in all, beyond any one call's 1.5 s limit and beyond one
      // host deadline (2 s), yet each call's limit starts at its turn, so all of them succeed. Each
      // call has 900 ms to spare, for a loaded machine.
      const results = await Promise.all(Array.from({ length: 4 }, () => t.runner.run(busy, input({ ms: 600 }))));
      expect(results.map((result) => result.kind)).toEqual(['override', 'override', 'override', 'override']);
      expect(t.logs.filter((l) => l['event'] === 'sandbox.killed' || l['event'] === 'transform.failed')).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('a worker that stops answering is SIGKILLed at the host deadline and replaced', async () => {
    const t = startRunner({ limits: { workers: 1, timeoutMs: LIMIT_TEST_MS } });
    try {
      const echo = await t.runner.load({ module: 'echo.js' });
      const [frozen] = t.runner.workerPids();
      // A stopped process cannot answer: only the ingress-side deadline (timeoutMs + 2 s) can end the call.
      process.kill(frozen!, 'SIGSTOP');
      expect(await codeOf(t.runner.run(echo, input({ n: 1 })))).toBe('TRANSFORM_UNAVAILABLE');
      expect(t.logs.find((l) => l['event'] === 'sandbox.killed')).toMatchObject({ pid: frozen, deadlineMs: 2200 });
      expect(t.logs.filter((l) => l['event'] === 'transform.failed').map((l) => l['reason'])).toEqual(['wedged']);
      await expect.poll(() => isAlive(frozen!), { timeout: 15_000 }).toBe(false);
      await expect(t.runner.run(echo, input({ n: 2 }))).resolves.toMatchObject({ kind: 'override', value: { message: 'echo 2' } });
      expect(t.runner.workerPids()).not.toContain(frozen);
    } finally {
      await t.close();
    }
  });

  it('a worker above the RSS ceiling is retired after its reply and replaced', async () => {
    // The timer would kill it mid-call at this ceiling: this is the answer-time check alone.
    const t = startRunner({ limits: { workers: 1 }, rssCeilingMb: 1, rssCheckMs: 0 });
    try {
      const echo = await t.runner.load({ module: 'echo.js' });
      const [first] = t.runner.workerPids();
      await expect(t.runner.run(echo, input({ n: 1 }))).resolves.toMatchObject({ kind: 'override' });
      expect(t.logs.find((l) => l['event'] === 'sandbox.retire')).toMatchObject({ wedged: false });
      await expect.poll(() => isAlive(first!), { timeout: 15_000 }).toBe(false);
      await expect(t.runner.run(echo, input({ n: 2 }))).resolves.toMatchObject({ kind: 'override', value: { message: 'echo 2' } });
    } finally {
      await t.close();
    }
  });

  it('a worker whose memory outside the isolate heap passes workerRssMb is killed mid-call, long before the deadline, and replaced', async () => {
    // array-fill.js grows a backing store the isolate limit does not see and outlives the time limit.
    // How soon it passes the ceiling depends on the CPU it gets: the time limit (and the test's) is
    // far beyond that even on a starved machine, so only the RSS check can end the call first.
    const t = startRunner({ limits: { workers: 1, timeoutMs: 120_000, workerRssMb: 160 } });
    try {
      const fill = await t.runner.load({ module: 'array-fill.js' });
      const echo = await t.runner.load({ module: 'echo.js' });
      const [first] = t.runner.workerPids();
      await expect(t.runner.run(fill, input({}))).rejects.toMatchObject({ code: 'TRANSFORM_UNAVAILABLE' });
      const retire = t.logs.find((l) => l['event'] === 'sandbox.retire');
      expect(retire).toMatchObject({ pid: first, reason: 'rss' });
      expect(retire?.['rss']).toBeGreaterThan(160 * 1024 * 1024);
      expect(t.logs.find((l) => l['event'] === 'sandbox.killed')).toBeUndefined(); // not the host deadline
      await expect.poll(() => isAlive(first!), { timeout: 15_000 }).toBe(false);
      await expect(t.runner.run(echo, input({ n: 2 }))).resolves.toMatchObject({ kind: 'override', value: { message: 'echo 2' } });
    } finally {
      await t.close();
    }
  }, 150_000);

  it('close() ends every worker process', async () => {
    const t = startRunner({ limits: { workers: 3 }, growAfterMs: 0 });
    const busy = await t.runner.load({ module: 'busy.js' });
    // Nine calls of one module at once fill two workers and start the third.
    const calls = Array.from({ length: 9 }, () => t.runner.run(busy, input({ ms: 50 })));
    const pids = t.runner.workerPids();
    expect(pids).toHaveLength(3);
    await Promise.all(calls);
    await t.runner.close();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(t.runner.workerPids()).toEqual([]);
  });
});
