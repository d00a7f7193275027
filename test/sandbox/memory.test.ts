import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workerEnv } from '../../src/sandbox/worker-process.js';
import { input, isAlive, startRunner } from './helpers.js';

const message = (result: unknown): unknown => (result as { value?: { message?: unknown } }).value?.message;

describe('sandbox memory that follows use, not configuration', () => {
  it('within the isolate budget, a module keeps its isolate (and its state) between calls', async () => {
    const t = startRunner({ limits: { workers: 1, isolateBudgetMb: 1024 } });
    try {
      const first = await t.runner.load({ module: 'counter.js', export: 'first' });
      const second = await t.runner.load({ module: 'counter.js', export: 'second' });
      expect(message(await t.runner.run(first, input({})))).toBe('first 1');
      expect(message(await t.runner.run(second, input({})))).toBe('second 1');
      expect(message(await t.runner.run(first, input({})))).toBe('first 2');
      const [stats] = await t.runner.workerStats();
      expect(stats?.isolates).toBe(2);
      expect(stats?.isolateHeapBytes).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });

  it('past the isolate budget, the least recently used isolate is disposed and re-created on its next call', async () => {
    const t = startRunner({ limits: { workers: 1, isolateBudgetMb: 0 } });
    try {
      const first = await t.runner.load({ module: 'counter.js', export: 'first' });
      const second = await t.runner.load({ module: 'counter.js', export: 'second' });
      expect((await t.runner.workerStats())[0]?.isolates).toBe(1); // loading kept only the last one
      expect(message(await t.runner.run(first, input({})))).toBe('first 1');
      expect(message(await t.runner.run(first, input({})))).toBe('first 2');
      expect(message(await t.runner.run(second, input({})))).toBe('second 1');
      // first's isolate was disposed for second's: its module state starts over.
      expect(message(await t.runner.run(first, input({})))).toBe('first 1');
      expect((await t.runner.workerStats())[0]?.isolates).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('an isolate idle for isolateIdleSeconds is disposed; the module still answers', async () => {
    const t = startRunner({ limits: { workers: 1, isolateIdleSeconds: 1 } });
    try {
      const first = await t.runner.load({ module: 'counter.js', export: 'first' });
      expect(message(await t.runner.run(first, input({})))).toBe('first 1');
      await expect.poll(async () => (await t.runner.workerStats())[0]?.isolates, { timeout: 20_000, interval: 100 }).toBe(0);
      expect(message(await t.runner.run(first, input({})))).toBe('first 1');
    } finally {
      await t.close();
    }
  });

  it('starts one worker; a second only when calls of a module fill the first', async () => {
    const t = startRunner({ limits: { workers: 2, timeoutMs: 30_000 }, growAfterMs: 0 });
    try {
      const never = await t.runner.load({ module: 'never.js' });
      expect(t.runner.workerPids()).toHaveLength(1);
      // Four calls of one module fill a worker (MODULE_PIPELINE_DEPTH); the fifth starts the second.
      const calls = Array.from({ length: 4 }, () => t.runner.run(never, input({})).catch(() => undefined));
      expect(t.runner.workerPids()).toHaveLength(1);
      calls.push(t.runner.run(never, input({})).catch(() => undefined));
      expect(t.runner.workerPids()).toHaveLength(2);
      await t.runner.close();
      await Promise.all(calls);
    } finally {
      await t.close();
    }
  });

  it('a burst the first worker clears before calls have waited long starts no second worker', async () => {
    // A grace far longer than eight echo calls take, however busy the machine: none waits it out.
    const t = startRunner({ limits: { workers: 2 }, growAfterMs: 60_000 });
    try {
      const echo = await t.runner.load({ module: 'echo.js' });
      const results = await Promise.all(Array.from({ length: 8 }, (_, n) => t.runner.run(echo, input({ n }))));
      expect(results.map(message)).toEqual(Array.from({ length: 8 }, (_, n) => `echo ${n}`));
      expect(t.runner.workerPids()).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('calls that waited only because the service itself stalled (the replies unread) start no second worker', async () => {
    const t = startRunner({ limits: { workers: 2, timeoutMs: 30_000 }, growAfterMs: 20 });
    try {
      const echo = await t.runner.load({ module: 'echo.js' });
      await t.runner.run(echo, input({ n: 0 })); // the module is loaded: the calls below go out at once
      const calls = Array.from({ length: 8 }, (_, n) => t.runner.run(echo, input({ n })));
      // Four calls are with the worker, four wait. The event loop stalls far past the grace (as in a
      // long collection) while the worker answers; the grace's timer then fires before the replies
      // are read, and must not take the unread replies for a full worker.
      // (The pool sends a turn's calls in one write from a setImmediate: the stall starts a turn later.)
      await new Promise<void>((resolve) =>
        setImmediate(() =>
          setImmediate(() => {
            const until = performance.now() + 2500;
            while (performance.now() < until);
            resolve();
          }),
        ),
      );
      expect((await Promise.all(calls)).map(message)).toEqual(Array.from({ length: 8 }, (_, n) => `echo ${n}`));
      expect(t.runner.workerPids()).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('calls still waiting for a full worker when the grace ends start the second, which takes them', async () => {
    const t = startRunner({ limits: { workers: 2, timeoutMs: 30_000 }, growAfterMs: 20 });
    try {
      const never = await t.runner.load({ module: 'never.js' });
      const echo = await t.runner.load({ module: 'echo.js' });
      const calls = Array.from({ length: 5 }, () => t.runner.run(never, input({})).catch(() => undefined));
      expect(t.runner.workerPids()).toHaveLength(1);
      await expect.poll(() => t.runner.workerPids(), { timeout: 15_000 }).toHaveLength(2);
      // The first worker is full with `never`; the second answers other modules meanwhile too.
      await expect(t.runner.run(echo, input({ n: 1 }))).resolves.toMatchObject({ value: { message: 'echo 1' } });
      await t.runner.close();
      await Promise.all(calls);
    } finally {
      await t.close();
    }
  });

  it('after a burst, calls that the first worker has room for all go to it, so the second goes idle and stops', async () => {
    let clock = 0;
    const t = startRunner({ limits: { workers: 2, workerIdleSeconds: 60 }, now: () => clock, idleCheckMs: 5, growAfterMs: 0 });
    try {
      const echo = await t.runner.load({ module: 'echo.js' });
      await Promise.all(Array.from({ length: 8 }, (_, n) => t.runner.run(echo, input({ n }))));
      const pids = t.runner.workerPids();
      expect(pids).toHaveLength(2);
      // A steady load of two calls at a time: spread over both workers it would keep the second busy.
      for (let minute = 0; minute < 7; minute++) {
        clock += 10_000;
        const pair = await Promise.all([t.runner.run(echo, input({ n: 1 })), t.runner.run(echo, input({ n: 2 }))]);
        expect(pair.map(message)).toEqual(['echo 1', 'echo 2']);
      }
      await expect.poll(() => t.runner.workerPids(), { timeout: 10_000 }).toEqual([pids[0]]);
    } finally {
      await t.close();
    }
  });

  it('a worker beyond the first stops after workerIdleSeconds without calls; the first stays', async () => {
    let clock = 0;
    let clockReads = 0;
    const now = (): number => {
      clockReads += 1;
      return clock;
    };
    const t = startRunner({ limits: { workers: 2, workerIdleSeconds: 60 }, now, idleCheckMs: 5, growAfterMs: 0 });
    try {
      const echo = await t.runner.load({ module: 'echo.js' });
      const results = await Promise.all(Array.from({ length: 8 }, (_, n) => t.runner.run(echo, input({ n }))));
      expect(results.map(message)).toEqual(Array.from({ length: 8 }, (_, n) => `echo ${n}`));
      const pids = t.runner.workerPids();
      expect(pids).toHaveLength(2);
      clock += 59_000;
      // With no calls, only the idle check reads the clock, and it decides synchronously: two more
      // reads are two checks that saw 59 s of idleness.
      const readsBefore = clockReads;
      await expect.poll(() => clockReads, { timeout: 10_000 }).toBeGreaterThanOrEqual(readsBefore + 2);
      expect(t.runner.workerPids()).toEqual(pids);
      clock += 1_000;
      await expect.poll(() => t.runner.workerPids(), { timeout: 10_000 }).toEqual([pids[0]]);
      await expect.poll(() => isAlive(pids[1]!), { timeout: 10_000 }).toBe(false);
      await expect(t.runner.run(echo, input({ n: 9 }))).resolves.toMatchObject({ value: { message: 'echo 9' } });
      expect(t.logs.some((l) => l['event'] === 'sandbox.idle-stop')).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe('the sandbox workers’ malloc settings', () => {
  it('fix glibc’s mmap threshold at 64 KiB unless the environment sets one', () => {
    expect(workerEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(workerEnv({ MALLOC_MMAP_THRESHOLD_: '1048576' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '1048576' });
  });

  it.skipIf(process.platform !== 'linux')('reach a started worker process', async () => {
    const t = startRunner({ limits: { workers: 1 } });
    try {
      await t.runner.load({ module: 'counter.js', export: 'first' });
      const [stats] = await t.runner.workerStats();
      const environ = readFileSync(`/proc/${stats!.pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`MALLOC_MMAP_THRESHOLD_=${process.env['MALLOC_MMAP_THRESHOLD_'] ?? '65536'}`);
    } finally {
      await t.close();
    }
  });
});
