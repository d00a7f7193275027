import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentAction } from '../../src/actions/types.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import type { MappingRunLimits } from '../../src/runtime/gates/run-limits.js';
import type { ProviderPort } from '../../src/runtime/ports.js';
import type { Store } from '../../src/store/port.js';
import { createManualClock, type ManualClock } from '../helpers/manual-clock.js';
import { agentAction, blockingProvider, fakeChannel, insertRun, makeDefaults, portOn, rows, settle, simpleDeliver, tempStore, turn, type TempStore } from './helpers.js';

let temp: TempStore;
beforeEach(() => {
  temp = tempStore();
});
afterEach(() => temp.cleanup());

interface Harness {
  clock: ManualClock;
  runtime: Runtime;
  store: Store;
}

/** A runtime with run gates over the temp store; `limits` are mapping `m`'s. */
function gatedRuntime(options: Partial<RuntimeOptions> & { limits?: Omit<MappingRunLimits, 'owner' | 'budgetScope'>; clock?: ManualClock } = {}): Harness {
  const clock = options.clock ?? createManualClock();
  const store = portOn(temp.db);
  const { limits, ...rest } = options;
  const runtime = createRuntime({
    store,
    defaults: makeDefaults(),
    providers: new Map(),
    channels: new Map([['log', fakeChannel('log', [])]]),
    deliver: simpleDeliver,
    logger: silentLogger(),
    gates: { limits: store.limits, runLimits: new Map(limits === undefined ? [] : [['m', { owner: 'm', budgetScope: 'mapping:m', ...limits }]]) },
    ...rest,
    clock,
  });
  return { clock, runtime, store };
}

function mapped(key: string, overrides: Partial<AgentAction> = {}): AgentAction {
  return agentAction({ origin: { hook: 'sentry', mappingId: 'm' }, limitKeys: { concurrency: key, throttle: key }, message: `key ${key}`, ...overrides });
}

function queue(h: Harness, actions: AgentAction[]): AgentAction[] {
  for (const action of actions) insertRun(temp.db, action, h.clock.now());
  h.runtime.notify(actions);
  return actions;
}

/**
 * settle() until the runs stop changing: settle returns once nothing executes, which with one
 * slot can fall between a run's end and the queue's next claim.
 */
async function drain(clock: ManualClock, runtime: Runtime): Promise<void> {
  let last = '';
  for (let round = 0; round < 50; round += 1) {
    await settle(clock, runtime);
    await turn(clock, 3);
    const now = JSON.stringify(rows(temp.db, 'SELECT status, waiting_for, not_before FROM runs ORDER BY rowid'));
    if (now === last) return;
    last = now;
  }
  throw new Error('the runs did not stop changing');
}

function runningPerKey(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows<{ action: string }>(temp.db, "SELECT action FROM runs WHERE status = 'running'")) {
    const key = (JSON.parse(row.action) as AgentAction).limitKeys?.concurrency ?? '';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** A provider that records when each call started (by the manual clock) and answers at once. */
function timedProvider(clock: ManualClock): ProviderPort & { starts: number[] } {
  const starts: number[] = [];
  return {
    id: 'fake',
    starts,
    async complete(request) {
      // Run messages only: a catch-up heartbeat after a restart calls the provider too.
      if (/^(message|key) /.test(request.messages.at(-1)?.content ?? '')) starts.push(clock.now());
      return { text: 'ok' };
    },
  };
}

/** A provider that refuses connections until block(), then answers each call only when the test releases it. */
function downThenSlow(): { provider: ProviderPort; blocking: ReturnType<typeof blockingProvider>; block: () => void } {
  let mode: 'fail' | 'block' = 'fail';
  const blocking = blockingProvider('fake');
  const provider: ProviderPort = {
    id: 'fake',
    complete: (request) => (mode === 'fail' ? Promise.reject(new Error('connect ECONNREFUSED')) : blocking.complete(request)),
  };
  return { provider, blocking, block: () => void (mode = 'block') };
}

describe('run gates', () => {
  it('runs one run per concurrency key at a time while different keys run side by side', async () => {
    const provider = blockingProvider('fake');
    const h = gatedRuntime({ limits: { concurrency: { limit: 1, key: '{{id}}' } }, providers: new Map([['fake', provider]]) });
    await h.runtime.start();
    const [a1, a2, b1, b2] = queue(h, [mapped('a'), mapped('a'), mapped('b'), mapped('b')]) as [AgentAction, AgentAction, AgentAction, AgentAction];
    await turn(h.clock, 10);
    expect(provider.inFlight()).toBe(2);
    expect(runningPerKey()).toEqual(new Map([['a', 1], ['b', 1]]));
    expect(await h.store.runs.view(a2.runId)).toMatchObject({ status: 'queued', waitingFor: 'concurrency' });
    expect((await h.store.runs.view(a2.runId))?.notBefore).toBeUndefined();
    provider.releaseAll();
    await turn(h.clock, 10);
    expect(runningPerKey()).toEqual(new Map([['a', 1], ['b', 1]]));
    expect(await h.store.runs.view(a1.runId)).toMatchObject({ status: 'ok' });
    expect(await h.store.runs.view(b1.runId)).toMatchObject({ status: 'ok' });
    provider.releaseAll();
    await drain(h.clock, h.runtime);
    expect(await h.store.runs.view(b2.runId)).toMatchObject({ status: 'ok' });
    expect(provider.maxInFlight()).toBe(2);
    await h.runtime.stop();
  });

  it('starts throttled runs of one key at least periodSeconds / limit apart, in arrival order', async () => {
    const clock = createManualClock();
    const provider = timedProvider(clock);
    const h = gatedRuntime({ clock, limits: { throttle: { limit: 1, periodSeconds: 2, key: '{{id}}' } }, providers: new Map([['fake', provider]]) });
    await h.runtime.start();
    const actions = queue(h, [mapped('k'), mapped('k'), mapped('k'), mapped('other')]);
    await drain(h.clock, h.runtime);
    expect(provider.starts).toHaveLength(2); // the first of `k` and the first of `other`
    const second = actions[1] as AgentAction;
    expect(await h.store.runs.view(second.runId)).toMatchObject({ status: 'queued', waitingFor: 'throttle', notBefore: new Date(clock.now() + 2000).toISOString() });
    h.clock.advance(1999);
    await drain(h.clock, h.runtime);
    expect(provider.starts).toHaveLength(2);
    h.clock.advance(1);
    await drain(h.clock, h.runtime);
    expect(provider.starts).toHaveLength(3);
    h.clock.advance(2000);
    await drain(h.clock, h.runtime);
    expect(provider.starts).toHaveLength(4);
    const ofK = rows<{ started_at: number }>(temp.db, "SELECT started_at FROM runs WHERE action LIKE '%key k%' ORDER BY created_at, rowid");
    expect(ofK.map((row) => row.started_at - (ofK[0]?.started_at ?? 0))).toEqual([0, 2000, 4000]);
    await h.runtime.stop();
  });

  it('holds the 6th run of a 5-per-hour budget until the window frees, and counts starts across a restart', async () => {
    const clock = createManualClock();
    const provider = timedProvider(clock);
    const defaults = makeDefaults({ budget: { runsPerHour: 5 } });
    const h = gatedRuntime({ clock, defaults, providers: new Map([['fake', provider]]) });
    await h.runtime.start();
    const first = Array.from({ length: 5 }, () => agentAction());
    queue(h, first);
    await drain(h.clock, h.runtime);
    h.clock.advance(60_000);
    const sixth = queue(h, [agentAction()])[0] as AgentAction;
    await drain(h.clock, h.runtime);
    expect(provider.starts).toHaveLength(5);
    const freesAt = (provider.starts[0] as number) + 3_600_000;
    expect(await h.store.runs.view(sixth.runId)).toMatchObject({ status: 'queued', waitingFor: 'budget', notBefore: new Date(freesAt).toISOString() });
    await h.runtime.stop();

    // A restart: a new store object and runtime on the same file still count the five starts.
    const again = gatedRuntime({ clock, defaults, providers: new Map([['fake', provider]]) });
    await again.runtime.start();
    await drain(clock, again.runtime);
    expect(provider.starts).toHaveLength(5);
    clock.advance(freesAt - clock.now() - 1);
    await drain(clock, again.runtime);
    expect(provider.starts).toHaveLength(5);
    clock.advance(1);
    await drain(clock, again.runtime);
    expect(provider.starts).toHaveLength(6);
    expect(await again.store.runs.view(sixth.runId)).toMatchObject({ status: 'ok' });
    await again.runtime.stop();
  });

  it('decides the runs a budget held again when new limits raise it, and starts them before a run admitted after the raise', async () => {
    const clock = createManualClock();
    const provider = timedProvider(clock);
    const h = gatedRuntime({ clock, limits: { budget: { runsPerHour: 1 } }, defaults: makeDefaults({ maxConcurrent: 1 }), providers: new Map([['fake', provider]]) });
    await h.runtime.start();
    const held = queue(h, [mapped('a'), mapped('b'), mapped('c')]);
    await drain(h.clock, h.runtime);
    expect(provider.starts).toHaveLength(1);
    expect(await h.store.runs.view((held[2] as AgentAction).runId)).toMatchObject({ status: 'queued', waitingFor: 'budget', notBefore: new Date(clock.now() + 3_600_000).toISOString() });
    h.runtime.setRunLimits(new Map([['m', { owner: 'm', budgetScope: 'mapping:m', budget: { runsPerHour: 10 } }]]));
    const newer = queue(h, [mapped('d')]);
    await drain(h.clock, h.runtime);
    expect(provider.starts).toHaveLength(4);
    const started = rows<{ run_id: string }>(temp.db, "SELECT run_id FROM run_starts WHERE scope = 'mapping:m' ORDER BY id").map((row) => row.run_id);
    expect(started).toEqual([...held, ...newer].map((action) => action.runId));
    await h.runtime.stop();
  });

  it('starts a run past its budget when forced', async () => {
    const clock = createManualClock();
    const provider = timedProvider(clock);
    const h = gatedRuntime({ clock, defaults: makeDefaults({ budget: { runsPerDay: 1 } }), providers: new Map([['fake', provider]]) });
    await h.runtime.start();
    const [, second] = queue(h, [agentAction(), agentAction()]) as [AgentAction, AgentAction];
    await drain(h.clock, h.runtime);
    expect(await h.store.runs.view(second.runId)).toMatchObject({ waitingFor: 'budget' });
    expect(await h.store.limits.forceStart(second.runId, clock.now())).toEqual({ kind: 'forced' });
    h.runtime.notify([second]);
    await drain(h.clock, h.runtime);
    expect(await h.store.runs.view(second.runId)).toMatchObject({ status: 'ok' });
    expect(await h.store.limits.forceStart(second.runId, clock.now())).toEqual({ kind: 'not-queued', status: 'ok' });
    expect(await h.store.limits.forceStart('nope', clock.now())).toEqual({ kind: 'not-found' });
    await h.runtime.stop();
  });

  it('opens a provider circuit after 5 failures: later runs wait, one probe runs, success closes it and all finish', async () => {
    const clock = createManualClock();
    const { provider, blocking, block } = downThenSlow();
    const defaults = makeDefaults({ maxConcurrent: 1, circuitBreaker: { failures: 5, openSeconds: 300 } });
    const h = gatedRuntime({ clock, defaults, providers: new Map([['fake', provider]]) });
    await h.runtime.start();
    const actions = queue(h, Array.from({ length: 7 }, () => agentAction()));
    await drain(h.clock, h.runtime);
    const statuses = async () => Promise.all(actions.map(async (action) => (await h.store.runs.view(action.runId))?.status));
    expect(await statuses()).toEqual(['error', 'error', 'error', 'error', 'error', 'queued', 'queued']);
    const openUntil = new Date(clock.now() + 300_000).toISOString();
    expect(await h.store.runs.view((actions[5] as AgentAction).runId)).toMatchObject({ waitingFor: 'provider-circuit', notBefore: openUntil });
    block();
    h.clock.advance(299_999);
    await drain(h.clock, h.runtime);
    expect(blocking.calls).toHaveLength(0);
    h.clock.advance(1);
    await turn(h.clock, 10);
    expect(blocking.inFlight()).toBe(1); // the probe, alone
    expect(await h.store.runs.view((actions[6] as AgentAction).runId)).toMatchObject({ status: 'queued' });
    blocking.releaseAll();
    await turn(h.clock, 10);
    blocking.releaseAll();
    await drain(h.clock, h.runtime);
    expect(await statuses()).toEqual(['error', 'error', 'error', 'error', 'error', 'ok', 'ok']);
    expect((await h.store.limits.overview([], clock.now())).circuits).toEqual([expect.objectContaining({ provider: 'fake', state: 'closed', failures: 0 })]);
    await h.runtime.stop();
  });

  it('lets exactly one probe call an open provider while it runs, however many leases its call outlives', async () => {
    const clock = createManualClock();
    const { provider, blocking, block } = downThenSlow();
    const defaults = makeDefaults({ maxConcurrent: 4, timeoutSeconds: 3600, circuitBreaker: { failures: 2, openSeconds: 60 } });
    const h = gatedRuntime({ clock, defaults, providers: new Map([['fake', provider]]) });
    await h.runtime.start();
    queue(h, [agentAction(), agentAction()]);
    await drain(h.clock, h.runtime);
    const waiting = queue(h, [agentAction(), agentAction(), agentAction()]);
    await drain(h.clock, h.runtime);
    expect(await h.store.runs.view((waiting[0] as AgentAction).runId)).toMatchObject({ status: 'queued', waitingFor: 'provider-circuit' });
    block();
    h.clock.advance(60_000);
    await turn(h.clock, 10);
    expect(blocking.inFlight()).toBe(1);
    // The probe's call takes ten minutes: its run's lease (60 s) is renewed all along, and so is its hold on the circuit.
    for (let step = 0; step < 60; step += 1) {
      h.clock.advance(10_000);
      await turn(h.clock, 10);
      expect(blocking.inFlight()).toBe(1);
    }
    expect(blocking.calls).toHaveLength(1);
    blocking.releaseAll();
    await turn(h.clock, 10);
    blocking.releaseAll();
    await turn(h.clock, 10);
    blocking.releaseAll();
    await drain(h.clock, h.runtime);
    expect(await Promise.all(waiting.map(async (action) => (await h.store.runs.view(action.runId))?.status))).toEqual(['ok', 'ok', 'ok']);
    await h.runtime.stop();
  });
});
