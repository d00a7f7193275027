import { describe, expect, it } from 'vitest';
import { codeOf, input, isAlive, startRunner } from './helpers.js';

describe('draining a sandbox pool (a reload retires it)', () => {
  it('takes no new calls, answers the calls in flight, then its workers exit', { timeout: 60_000 }, async () => {
    const t = startRunner({ limits: { workers: 1, timeoutMs: 30_000 } });
    try {
      const echo = await t.runner.load({ module: 'echo.js' });
      const [worker] = t.runner.workerPids();
      // Stopped, the worker holds the calls in flight as long as the test wants (no deadline is near).
      process.kill(worker!, 'SIGSTOP');
      const inFlight = [t.runner.run(echo, input({ n: 1 })), t.runner.run(echo, input({ n: 2 }))];
      let drained = false;
      const draining = t.runner.drain().then(() => (drained = true));
      expect(await codeOf(t.runner.run(echo, input({ n: 3 })))).toBe('TRANSFORM_UNAVAILABLE');
      expect(drained).toBe(false);
      expect(isAlive(worker!)).toBe(true);
      process.kill(worker!, 'SIGCONT');
      await expect(Promise.all(inFlight)).resolves.toEqual([
        { kind: 'override', value: { message: 'echo 1', name: 'Echo' } },
        { kind: 'override', value: { message: 'echo 2', name: 'Echo' } },
      ]);
      await draining;
      expect(isAlive(worker!)).toBe(false);
      expect(t.runner.workerPids()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('closes at once when nothing is in flight', async () => {
    const t = startRunner({ limits: { workers: 2, timeoutMs: 10_000 } });
    try {
      await t.runner.load({ module: 'echo.js' });
      const pids = t.runner.workerPids();
      await t.runner.drain();
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
    } finally {
      await t.close();
    }
  });
});
