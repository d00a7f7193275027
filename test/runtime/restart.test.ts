import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { agentAction, blockingProvider, fakeProvider, insertRun, insertWake, makeRuntime, rows, settle, tempStore, turn, type TempStore } from './helpers.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

/** What a crash leaves: the row was claimed (running, one attempt) and the process vanished. */
function markRunning(runId: string, attempts: number): void {
  store.db.prepare("UPDATE runs SET status = 'running', attempts = ?, started_at = 1 WHERE run_id = ?").run(attempts, runId);
}

describe('restart', () => {
  it('re-queues a run left running, runs queued runs and heartbeats pending events', async () => {
    const crashed = insertRun(store.db, agentAction({ name: 'Crashed' }), 1);
    const queued = insertRun(store.db, agentAction({ name: 'Queued' }), 2);
    markRunning(crashed.runId, 1);
    insertWake(store.db, 'left pending', 'next-heartbeat', 3);
    store.db.prepare("INSERT INTO heartbeats (started_at, status, event_count) VALUES (1, 'running', 1)").run();
    const db = store.reopen();
    const provider = fakeProvider('fake', (call) => (call.messages[0]?.role === 'system' ? 'HEARTBEAT_OK' : 'fine'));
    const h = makeRuntime(db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(readRunView(db, crashed.runId)).toMatchObject({ status: 'ok', summary: 'Hook Crashed: fine' });
    expect(rows(db, 'SELECT attempts FROM runs WHERE run_id = ?', crashed.runId)).toEqual([{ attempts: 2 }]);
    expect(readRunView(db, queued.runId)?.status).toBe('ok');
    // The restart heartbeat took the old event; the summaries (wakeMode next-heartbeat) wait for the tick.
    expect(rows(db, "SELECT text, status FROM events WHERE text = 'left pending'")).toEqual([{ text: 'left pending', status: 'consumed' }]);
    expect(rows(db, "SELECT text FROM events WHERE status = 'pending' ORDER BY id")).toEqual([{ text: 'Hook Crashed: fine' }, { text: 'Hook Queued: fine' }]);
    expect(rows(db, 'SELECT status, error FROM heartbeats ORDER BY id')).toEqual([
      { status: 'error', error: 'interrupted by a restart' },
      { status: 'ok', error: null },
    ]);
    await h.runtime.stop();
  });

  it('ends a run interrupted a second time as interrupted and posts its summary', async () => {
    const twice = insertRun(store.db, agentAction({ name: 'Twice' }), 1);
    markRunning(twice.runId, 2);
    const provider = fakeProvider('fake', () => 'HEARTBEAT_OK');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    await settle(h.clock, h.runtime);
    const view = readRunView(store.db, twice.runId);
    expect(view).toMatchObject({ status: 'interrupted', summary: 'Hook Twice (interrupted): run interrupted 2 times (restart or shutdown); not retried again' });
    expect(view?.finishedAt).toBeDefined();
    expect(provider.calls.filter((call) => call.messages[0]?.role !== 'system')).toEqual([]);
    expect(rows(store.db, 'SELECT text, run_id FROM events')).toEqual([{ text: view?.summary, run_id: twice.runId }]);
    await h.runtime.stop();
  });

  it('records runs cut by stop() as interrupted and resumes them at the next start', async () => {
    const provider = blockingProvider('fake');
    const first = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    first.runtime.start();
    const action = insertRun(store.db, agentAction({ name: 'Cut' }), first.clock.now());
    first.runtime.notify([action]);
    await turn(first.clock);
    expect(provider.inFlight()).toBe(1);
    await first.runtime.stop();
    expect(provider.inFlight()).toBe(0);
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'interrupted', error: 'interrupted by shutdown' });
    expect(readRunView(store.db, action.runId)?.finishedAt).toBeUndefined();
    expect(rows(store.db, 'SELECT id FROM events')).toEqual([]);

    const db = store.reopen();
    const second = makeRuntime(db, { providers: new Map([['fake', fakeProvider('fake', () => 'resumed')]]) });
    second.runtime.start();
    await settle(second.clock, second.runtime);
    expect(readRunView(db, action.runId)).toMatchObject({ status: 'ok', summary: 'Hook Cut: resumed' });
    expect(readRunView(db, action.runId)?.error).toBeUndefined();
    await second.runtime.stop();
  });

  it('takes no work after stop()', async () => {
    const provider = fakeProvider('fake');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    await h.runtime.stop();
    const action = insertRun(store.db, agentAction(), h.clock.now());
    insertWake(store.db, 'late', 'now', h.clock.now());
    h.runtime.notify([action, { kind: 'wake', text: 'late', mode: 'now', origin: { hook: 'wake' } }]);
    h.clock.advance(60 * 60_000);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toEqual([]);
    expect(readRunView(store.db, action.runId)?.status).toBe('queued');
  });

  it('is driven by the ingress store: a committed agent action runs and its summary reaches the main session', async () => {
    const provider = fakeProvider('fake', (call) => (call.messages[0]?.role === 'system' ? 'HEARTBEAT_OK' : 'from the store'));
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    const { ingress } = h.store;
    ingress.onCommitted((actions) => h.runtime.notify(actions));
    h.runtime.start();
    const action = agentAction({ name: 'Store', wakeMode: 'now' });
    await ingress.accept({ actions: [action], response: { status: 202, body: { ok: true, runId: action.runId } } });
    await settle(h.clock, h.runtime);
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'ok', summary: 'Hook Store: from the store' });
    expect(rows(store.db, "SELECT text, status FROM events")).toEqual([{ text: 'Hook Store: from the store', status: 'consumed' }]);
    await h.runtime.stop();
    await h.store.close();
  });
});
