import { describe, expect, it } from 'vitest';
import { createReloader, coalescing } from '../../src/config/reloader.js';
import { reloadReason, type ReloadState } from '../../src/config/reload-state.js';
import type { ResolvedConfig } from '../../src/config/load.js';
import type { LiveEngine } from '../../src/mapping/live-engine.js';
import { ConfigError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('coalescing', () => {
  it('runs one task at a time, and calls during a run share one follow-up run', async () => {
    const gates: Array<ReturnType<typeof deferred<void>>> = [];
    let started = 0;
    const run = coalescing(async () => {
      started += 1;
      const gate = deferred<void>();
      gates.push(gate);
      await gate.promise;
      return started;
    });
    const first = run();
    const second = run();
    const third = run();
    expect(second).toBe(third);
    expect(started).toBe(1);
    gates[0]!.resolve();
    expect(await first).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(2);
    gates[1]!.resolve();
    expect(await second).toBe(2);
    expect(started).toBe(2);
  });
});

describe('createReloader', () => {
  const fakeEngine = (failWith?: Error): LiveEngine => ({
    current: () => undefined,
    reload: async () => {
      if (failWith !== undefined) throw failWith;
    },
    close: async () => undefined,
  });
  const config = {} as ResolvedConfig;

  it('records a failure with its reason and when, keeps the last success, and clears it on the next success', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const states: ReloadState[] = [];
    let failure: Error | undefined = new ConfigError([{ path: '/hooks/mappings/0/transform', message: 'mapping "t": transform "t.js" cannot be loaded:\n  boom' }]);
    const engine = fakeEngine();
    engine.reload = async () => {
      if (failure !== undefined) throw failure;
    };
    const reloader = createReloader({ load: async () => config, engine, logger: silentLogger(), now: () => clock, onState: (state) => states.push(state) });
    const started = '2026-01-01T00:00:00.000Z';
    expect(reloader.state()).toEqual({ reloadFailed: false, lastReloadAt: started, lastSuccessAt: started, lastError: null });
    clock += 60_000;
    expect(await reloader.reload()).toBe(false);
    expect(reloader.state()).toEqual({
      reloadFailed: true,
      lastReloadAt: '2026-01-01T00:01:00.000Z',
      lastSuccessAt: started,
      lastError: '/hooks/mappings/0/transform: mapping "t": transform "t.js" cannot be loaded: boom',
    });
    failure = undefined;
    clock += 60_000;
    expect(await reloader.reload()).toBe(true);
    expect(reloader.state()).toEqual({ reloadFailed: false, lastReloadAt: '2026-01-01T00:02:00.000Z', lastSuccessAt: '2026-01-01T00:02:00.000Z', lastError: null });
    expect(states.map((state) => state.reloadFailed)).toEqual([false, true, false]);
  });

  it('does nothing once closed', async () => {
    let loads = 0;
    const reloader = createReloader({ load: async () => ((loads += 1), config), engine: fakeEngine(), logger: silentLogger(), onState: () => undefined });
    await reloader.close();
    expect(await reloader.reload()).toBe(false);
    expect(loads).toBe(0);
  });
});

describe('reloadReason', () => {
  it('is one line of at most 500 characters', () => {
    const reason = reloadReason(new Error(`first\nsecond ${'x'.repeat(1000)}`));
    expect(reason.startsWith('first second x')).toBe(true);
    expect(reason).not.toContain('\n');
    expect(reason).toHaveLength(500);
  });
});
