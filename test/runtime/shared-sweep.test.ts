import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import type { MainSessionStore, Store } from '../../src/store/port.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { burnCpu } from '../helpers/cpu-burner.js';
import { createManualClock, type ManualClock } from '../helpers/manual-clock.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';
import { agentAcceptance } from '../store/acceptances.js';
import { fakeProvider, makeDefaults } from './helpers.js';

/** The store, but its count of pending events is answered (read) only once `answer` resolves. */
function lateCountOf(store: PostgresStore, answer: Promise<void>): Store {
  const session: MainSessionStore = Object.create(store.session) as MainSessionStore;
  session.countPending = (...args) => answer.then(() => store.session.countPending(...args));
  const view: Store = Object.create(store) as Store;
  Object.defineProperty(view, 'session', { value: session });
  return view;
}

/** Restarts in the load test: each is one chance for a read of the queue to race the test's commit. */
const LOAD_ROUNDS = 50;

/**
 * The runtime of an instance that shares its PostgreSQL store: every sharedSweepMs it takes over
 * runs whose lease ran out (their instance died) and claims runs another instance queued. Time is
 * the manual clock; the store is a real database.
 */
describe('the shared sweep of a runtime on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: PostgresStore;
  let runtime: Runtime | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterEach(async () => {
    await runtime?.stop();
    await store?.close();
  });
  afterAll(() => database.drop());

  async function start(schema: string, sharedSweepMs: number | undefined, runtimeStore?: (opened: PostgresStore) => Store) {
    const clock = createManualClock();
    store = await openPostgresStore({ url: database.url, pool: 4, schema }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service', now: () => clock.now() });
    return { clock, ...(await restart(clock, sharedSweepMs, 'survivor', runtimeStore?.(store))) };
  }

  /** A new runtime (a new process) on the open store (or the view of it given), once it has read the run queue. */
  async function restart(clock: ManualClock, sharedSweepMs: number | undefined, instanceId = 'survivor', runtimeStore: Store = store) {
    await runtime?.stop();
    const lines: string[] = [];
    // Each finished sweep logs runtime.swept: the test waits for it instead of guessing.
    const sweeps = () => lines.filter((line) => line.includes('"runtime.swept"')).length;
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
    const provider = fakeProvider('fake');
    runtime = createRuntime({
      store: runtimeStore,
      instanceId,
      defaults: makeDefaults({ model: 'fake/model-a' }),
      providers: new Map([['fake', provider]]),
      channels: new Map(),
      logger,
      clock,
      leaseMs: 3000,
      ...(sharedSweepMs === undefined ? {} : { sharedSweepMs }),
    });
    await runtime.start();
    // start() resolves once recovery is written, while its read of the run queue may still be
    // under way: a run queued now could be claimed by it. The tests queue theirs after that read.
    await runtime.whenIdle();
    return { provider, sweeps };
  }

  it('re-runs a run whose instance died, once its lease ran out, counting the attempt', async () => {
    const { clock, provider, sweeps } = await start('died', 1500);
    const acceptance = agentAcceptance('left behind');
    await store.ingress.accept(acceptance); // no notify: as if another instance had accepted it
    const runId = (acceptance.response.body as { runId: string }).runId;
    expect(await store.runs.claim(runId, { owner: 'dead-instance', at: clock.now(), leaseUntil: clock.now() + 2000 })).toBe(true);

    clock.advance(1500); // a sweep while the lease holds: the run is left to its owner
    await until(() => sweeps() === 1, 10_000);
    expect(await store.runs.view(runId)).toMatchObject({ status: 'running', attempts: 1 });
    expect(provider.calls).toHaveLength(0);

    clock.advance(1500); // the next sweep comes after the lease ran out: it takes the run over and runs it here
    await until(async () => (await store.runs.view(runId))?.status === 'ok', 10_000);
    expect(await store.runs.view(runId)).toMatchObject({ status: 'ok', attempts: 2 });
    expect(provider.calls).toHaveLength(1);
  });

  it('claims runs another instance queued, which it was never told about', async () => {
    const { clock, provider } = await start('queued_elsewhere', 1500);
    const acceptance = agentAcceptance('queued on the other instance');
    await store.ingress.accept(acceptance);
    const runId = (acceptance.response.body as { runId: string }).runId;
    clock.advance(1500);
    await until(async () => (await store.runs.view(runId))?.status === 'ok', 10_000);
    expect(provider.calls, JSON.stringify(provider.calls.map((c) => c.messages.map((m) => m.content.slice(0, 80))))).toHaveLength(1);
  });

  it('runs no heartbeat for it when the count of events pending at start is answered after the run ended', async () => {
    // A pool answers a query when it has a connection for it: the start's count may wait for a new
    // connection while the run is claimed, run and finished on idle ones. Held here until then.
    const answer = Promise.withResolvers<void>();
    const { clock, provider } = await start('late_count', 1500, (opened) => lateCountOf(opened, answer.promise));
    const acceptance = agentAcceptance('queued on the other instance');
    await store.ingress.accept(acceptance);
    const runId = (acceptance.response.body as { runId: string }).runId;
    clock.advance(1500); // the start's catch-up heartbeat is due, and the sweep claims the run
    await until(async () => (await store.runs.view(runId))?.status === 'ok', 10_000);
    answer.resolve();
    await runtime!.whenIdle();
    // Its summary (wakeMode next-heartbeat) waits for the periodic tick, 30 minutes away.
    expect(provider.calls.map((call) => call.messages.at(-1)?.content)).toEqual(['queued on the other instance']);
  });

  it('without the sweep (one process per store) leaves them until the next start', async () => {
    const { clock } = await start('alone', undefined);
    const acceptance = agentAcceptance('not seen');
    await store.ingress.accept(acceptance);
    clock.advance(60_000);
    await runtime!.whenIdle();
    expect(await store.runs.view((acceptance.response.body as { runId: string }).runId)).toMatchObject({ status: 'queued' });
  });

  it(`leaves them until the next start, over ${LOAD_ROUNDS} restarts while other processes keep the CPU busy`, async () => {
    const burner = burnCpu();
    try {
      const { clock } = await start('alone_under_load', undefined);
      for (let round = 1; round <= LOAD_ROUNDS; round += 1) {
        const acceptance = agentAcceptance(`queued in round ${round}`);
        await store.ingress.accept(acceptance);
        const runId = (acceptance.response.body as { runId: string }).runId;
        clock.advance(60_000);
        await runtime!.whenIdle();
        expect(await store.runs.view(runId), `round ${round}: nothing looked for it`).toMatchObject({ status: 'queued', attempts: 0 });
        await restart(clock, undefined, `instance-${round}`);
        expect(await store.runs.view(runId), `round ${round}: the next start ran it`).toMatchObject({ status: 'ok', attempts: 1 });
      }
    } finally {
      await burner.stop();
    }
  });
});
