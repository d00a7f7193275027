import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { input, startRunner, type TestRunner } from './helpers.js';

let t: TestRunner;
let clock = 1_000_000;

beforeAll(() => {
  t = startRunner({ now: () => clock, limits: { console: true, timeoutMs: 10000 } }); // no test here is about the time limit
});

afterAll(async () => {
  await t.close();
});

function messageOf(result: unknown): unknown {
  return JSON.parse((result as { value: { message: string } }).value.message);
}

describe('nothing a call leaves behind is seen by the next call', () => {
  it('prototype pollution and global writes by one request are invisible to the next', async () => {
    const handle = await t.runner.load({ module: 'pollute.js' });
    const clean = { seen: { proto: null, global: null, arrayPush: 'push', json: '{"a":1}' }, blocked: 6 };
    // Several calls so that both workers (each with its own isolate) have been polluted before.
    for (const mark of ['A', 'B', 'C', 'D']) {
      expect(messageOf(await t.runner.run(handle, input({ mark })))).toEqual(clean);
    }
  });

  it('the guest has no require, process, fetch, timers, Atomics or isolated-vm objects', async () => {
    const handle = await t.runner.load({ module: 'escape.js', export: 'probe' });
    expect(messageOf(await t.runner.run(handle, input({})))).toEqual({
      require: 'undefined', process: 'undefined', fetch: 'undefined', setTimeout: 'undefined', setInterval: 'undefined',
      setImmediate: 'undefined', queueMicrotask: 'undefined', ivm: 'undefined', _ivm: 'undefined', module: 'undefined',
      Buffer: 'undefined', WebAssembly: 'undefined', Atomics: 'undefined', SharedArrayBuffer: 'undefined', functionThis: 'undefined',
    });
  });

  it('ordinary code that assigns inherited names (toString, Error name) still works on frozen intrinsics', async () => {
    const handle = await t.runner.load({ module: 'escape.js', export: 'overrideMistake' });
    await expect(t.runner.run(handle, input({}))).resolves.toEqual({ kind: 'override', value: { message: 'Failure mine legacy' } });
  });

  it('the transform receives a copy of payload, headers, query and path', async () => {
    const handle = await t.runner.load({ module: 'outcomes.js', export: 'echoInput' });
    const given = input({ a: [1, { b: null }], __proto__x: 1 }, { headers: { 'x-h': '1' }, query: { q: 'v' }, path: 'github' });
    expect(messageOf(await t.runner.run(handle, given))).toEqual(given);
  });
});

describe('console output', () => {
  it('is not logged unless hooks.transformLimits.console is on: one line per module says so, without the text', async () => {
    const quiet = startRunner({ now: () => clock, limits: { timeoutMs: 10000, workers: 1 } }); // busy machines: no time-limit noise
    try {
      const handle = await quiet.runner.load({ module: 'outcomes.js', export: 'logs' });
      await quiet.runner.run(handle, input({ lines: 3, width: 40 }));
      await quiet.runner.run(handle, input({ lines: 3, width: 40 }));
      expect(quiet.logs.filter((l) => l['event'] === 'transform.console')).toEqual([]);
      expect(quiet.logs.filter((l) => l['event'] === 'transform.console.off')).toEqual([
        expect.objectContaining({ module: 'outcomes.js#logs', msg: expect.stringContaining('hooks.transformLimits.console') }),
      ]);
      expect(JSON.stringify(quiet.logs)).not.toContain('x'.repeat(40));
    } finally {
      await quiet.close();
    }
  });


  it('becomes log lines tagged with the module, at most 20 a second, each at most 500 characters', async () => {
    const handle = await t.runner.load({ module: 'outcomes.js', export: 'logs' });
    const consoleLines = (): Array<Record<string, unknown>> => t.logs.filter((l) => l['event'] === 'transform.console');
    await t.runner.run(handle, input({ lines: 15, width: 2000 }));
    await t.runner.run(handle, input({ lines: 15 }));
    expect(consoleLines()).toHaveLength(20);
    expect(consoleLines()[0]).toMatchObject({ module: 'outcomes.js#logs' });
    expect(String(consoleLines()[0]?.['line'])).toHaveLength(500);
    clock += 1000;
    await t.runner.run(handle, input({ lines: 1 }));
    expect(t.logs.find((l) => l['event'] === 'transform.console.dropped')).toMatchObject({ module: 'outcomes.js#logs', dropped: 10 });
    expect(consoleLines()).toHaveLength(21);
  });

  it('a single call keeps at most 20 lines', async () => {
    clock += 5000;
    const before = t.logs.length;
    const handle = await t.runner.load({ module: 'outcomes.js', export: 'logs' });
    await t.runner.run(handle, input({ lines: 1000 }));
    expect(t.logs.slice(before).filter((l) => l['event'] === 'transform.console')).toHaveLength(20);
  });
});
