import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import type { TargetPort } from '../../src/runtime/ports.js';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { createManualClock, type ManualClock } from '../helpers/manual-clock.js';
import { fakeChannel, makeDefaults, portOn, settle, simpleDeliver, tempStore, turn, type TempStore } from './helpers.js';
import { insertForward, scriptedTarget } from './targets.js';

let temp: TempStore;
beforeEach(() => {
  temp = tempStore();
});
afterEach(() => temp.cleanup());

function gated(clock: ManualClock, target: TargetPort) {
  const store = portOn(temp.db);
  const runtime = createRuntime({
    store,
    defaults: makeDefaults({ maxConcurrent: 8 }),
    providers: new Map(),
    channels: new Map([['log', fakeChannel('log', [])]]),
    deliver: simpleDeliver,
    logger: silentLogger(),
    gates: { limits: store.limits },
    targets: new Map([[target.name, target]]),
    clock,
  });
  return { runtime, store };
}

describe('run gates of forwarded runs', () => {
  it('open the target\'s own circuit after its failures: its runs then wait instead of failing, and one probe closes it', async () => {
    const clock = createManualClock();
    const down = { kind: 'retry' as const, reason: 'unreachable (ECONNREFUSED)' };
    const home = scriptedTarget('home', [down, down, { kind: 'accepted', status: 200 }], { now: clock.now, settings: { circuitBreaker: { failures: 2, openSeconds: 60 } } });
    const { runtime, store } = gated(clock, home);
    const first = insertForward(temp.db, clock.now());
    const second = insertForward(temp.db, clock.now());
    await runtime.start();
    await settle(clock, runtime);
    expect(home.calls).toHaveLength(2);
    const circuits = (await store.limits.overview([], clock.now())).circuits;
    expect(circuits).toMatchObject([{ provider: 'target:home', state: 'open', failures: 2 }]);
    clock.advance(30_000);
    await settle(clock, runtime);
    expect(home.calls).toHaveLength(2); // retries due, but the circuit holds them
    expect(readRunView(temp.db, first.runId)?.waitingFor).toBe('provider-circuit');
    clock.advance(30_000);
    await settle(clock, runtime);
    expect(home.calls.length).toBeGreaterThanOrEqual(3);
    expect(readRunView(temp.db, first.runId)?.status).toBe('ok');
    expect(readRunView(temp.db, second.runId)?.status).toBe('ok');
    expect((await store.limits.overview([], clock.now())).circuits).toMatchObject([{ provider: 'target:home', state: 'closed' }]);
    await runtime.stop();
  });

  it('hold at most the target\'s concurrency in flight at once', async () => {
    const clock = createManualClock();
    const home = scriptedTarget('home', [{ kind: 'accepted', status: 200 }], { now: clock.now, settings: { concurrency: 1 } });
    home.hold = true;
    const { runtime } = gated(clock, home);
    const runs = [insertForward(temp.db, clock.now()), insertForward(temp.db, clock.now())];
    await runtime.start();
    await turn(clock, 20);
    expect(home.calls).toHaveLength(1);
    expect(readRunView(temp.db, runs[1]!.runId)?.waitingFor).toBe('concurrency');
    await runtime.stop();
  });
});
