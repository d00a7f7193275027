import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { createManualClock } from '../helpers/manual-clock.js';
import { until } from '../helpers/wait.js';
import { fakeProvider, insertRun, agentAction, makeRuntime, rows, settle, tempStore, type TempStore } from './helpers.js';
import { insertForward, scriptedTarget } from './targets.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

const ACCEPTED = { kind: 'accepted' as const, status: 200, runId: 'oc-run-1' };

function setUp(answers: Parameters<typeof scriptedTarget>[1], settings?: Parameters<typeof scriptedTarget>[2]['settings']) {
  const clock = createManualClock();
  const home = scriptedTarget('home', answers, { now: clock.now, ...(settings === undefined ? {} : { settings }) });
  const provider = fakeProvider('fake');
  const h = makeRuntime(store.db, { clock, targets: new Map([['home', home]]), providers: new Map([['fake', provider]]) });
  return { ...h, home, provider };
}

describe('forward runs', () => {
  it('hand the action to the target under the run id and end ok with its answer: no model call, no main-session event', async () => {
    const h = setUp([ACCEPTED]);
    const action = insertForward(store.db, h.clock.now());
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(h.home.calls.map((call) => [call.id, call.action?.kind === 'agent' ? call.action.message : undefined])).toEqual([[action.runId, action.message]]);
    expect(h.provider.calls).toHaveLength(0);
    expect(readRunView(store.db, action.runId)).toMatchObject({
      status: 'ok',
      kind: 'forward',
      attempts: 1,
      handoff: { target: 'home', status: 200, runId: 'oc-run-1' },
      summary: 'Forward Test → home: accepted (HTTP 200, its run oc-run-1)',
    });
    expect(rows(store.db, 'SELECT id FROM events')).toEqual([]);
    await h.runtime.stop();
  });

  it('send again after the target\'s Retry-After (not before), with the same id, and end ok', async () => {
    const h = setUp([{ kind: 'retry', status: 503, retryAfterMs: 2000, reason: 'answered 503' }, ACCEPTED]);
    const action = insertForward(store.db, h.clock.now());
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    const waiting = readRunView(store.db, action.runId);
    expect(waiting).toMatchObject({ status: 'queued', waitingFor: 'retry', notBefore: new Date(h.home.calls[0]!.at + 2000).toISOString(), handoff: { target: 'home', status: 503 } });
    expect(waiting?.error).toMatch(/^target "home" answered 503; retry at /);
    h.clock.advance(1999);
    await settle(h.clock, h.runtime);
    expect(h.home.calls).toHaveLength(1);
    h.clock.advance(1);
    await settle(h.clock, h.runtime);
    expect(h.home.calls.map((call) => call.id)).toEqual([action.runId, action.runId]);
    expect(h.home.calls[1]!.at - h.home.calls[0]!.at).toBe(2000);
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'ok', attempts: 2 });
    await h.runtime.stop();
  });

  it('end error at once with the target\'s answer when it says the request is wrong', async () => {
    const h = setUp([{ kind: 'refused', status: 400, reason: 'answered 400: message required' }]);
    const action = insertForward(store.db, h.clock.now());
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(h.home.calls).toHaveLength(1);
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'error', error: 'target "home" answered 400: message required', handoff: { target: 'home', status: 400 } });
    await h.runtime.stop();
  });

  it('end error after retry.maxAttempts, backing off in between', async () => {
    const h = setUp([{ kind: 'retry', reason: 'unreachable (ECONNREFUSED)' }], { retry: { maxAttempts: 3, maxAgeMs: 3_600_000, minDelayMs: 1000, maxDelayMs: 60_000 } });
    const action = insertForward(store.db, h.clock.now());
    await h.runtime.start();
    for (let step = 0; step < 4; step += 1) {
      await settle(h.clock, h.runtime);
      h.clock.advance(60_000);
    }
    await settle(h.clock, h.runtime);
    expect(h.home.calls).toHaveLength(3);
    const [first, second, third] = h.home.calls.map((call) => call.at);
    expect(second! - first!).toBeGreaterThanOrEqual(500); // the first wait: between half of minDelay and all of it
    expect(third! - second!).toBeGreaterThanOrEqual(1000); // then it doubles
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'error', error: 'target "home" unreachable (ECONNREFUSED); gave up after 3 attempts' });
    await h.runtime.stop();
  });

  it('end error after retry.maxAgeHours from when the run was accepted', async () => {
    const h = setUp([{ kind: 'retry', status: 502, reason: 'answered 502' }], { retry: { maxAttempts: 100, maxAgeMs: 10_000, minDelayMs: 4000, maxDelayMs: 4000 } });
    const action = insertForward(store.db, h.clock.now());
    await h.runtime.start();
    for (let step = 0; step < 6; step += 1) {
      await settle(h.clock, h.runtime);
      h.clock.advance(4000);
    }
    await settle(h.clock, h.runtime);
    expect(readRunView(store.db, action.runId)?.status).toBe('error');
    expect(readRunView(store.db, action.runId)?.error).toMatch(/answered 502; gave up after 0 min \(retry.maxAgeHours\)$/);
    expect(h.home.calls.length).toBeLessThan(6);
    await h.runtime.stop();
  });

  it('end error naming a target that is not configured', async () => {
    const h = setUp([ACCEPTED]);
    const action = insertForward(store.db, h.clock.now(), { forward: 'gone' });
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'error', error: 'target "gone" is not configured', handoff: { target: 'gone' } });
    await h.runtime.stop();
  });

  it('are cut by a shutdown mid-POST and sent again, under the same id, by the next start however often that happens', async () => {
    const clock = createManualClock();
    const first = scriptedTarget('home', [ACCEPTED], { now: clock.now });
    first.hold = true;
    const action = insertForward(store.db, clock.now());
    for (let restart = 0; restart < 3; restart += 1) {
      const h = makeRuntime(store.db, { clock, targets: new Map([['home', first]]) });
      await h.runtime.start();
      await until(() => first.calls.length === restart + 1);
      await h.runtime.stop();
      expect(readRunView(store.db, action.runId)?.status).toBe('interrupted');
    }
    first.hold = false;
    const h = makeRuntime(store.db, { clock, targets: new Map([['home', first]]) });
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(first.calls.map((call) => call.id)).toEqual([action.runId, action.runId, action.runId, action.runId]);
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'ok', attempts: 4 });
    await h.runtime.stop();
  });
});

describe('callbacks', () => {
  it('follow a local run\'s end: the run-finished document with its status and reply, posted to the callback target', async () => {
    const clock = createManualClock();
    const inbox = scriptedTarget('inbox', [{ kind: 'accepted', status: 204 }], { now: clock.now });
    const h = makeRuntime(store.db, { clock, targets: new Map([['inbox', inbox]]) });
    const action = insertRun(store.db, agentAction({ message: 'summarise', callback: 'inbox', origin: { hook: 'ci', mappingId: 'ci', scheme: 'token', verified: false, receivedAt: '2025-01-01T00:00:00.000Z' } }), clock.now());
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    const view = readRunView(store.db, action.runId);
    expect(view?.status).toBe('ok');
    expect(inbox.calls).toHaveLength(1);
    const call = inbox.calls[0]!;
    expect(call.document).toEqual({
      type: 'hookgate.run.finished.v1',
      runId: action.runId,
      status: 'ok',
      reply: 'reply to: summarise',
      startedAt: view?.startedAt,
      endedAt: view?.finishedAt,
      origin: { mappingId: 'ci', path: 'ci', scheme: 'token', verified: false, deliveryId: null, receivedAt: '2025-01-01T00:00:00.000Z' },
    });
    expect(readRunView(store.db, call.id)).toMatchObject({ kind: 'callback', status: 'ok', handoff: { target: 'inbox', status: 204 } });
    await h.runtime.stop();
  });

  it('follow a forwarded run\'s end with the target\'s answer, and are retried like forwards', async () => {
    const clock = createManualClock();
    const home = scriptedTarget('home', [{ kind: 'refused', status: 422, reason: 'answered 422: bad channel' }], { now: clock.now });
    const inbox = scriptedTarget('inbox', [{ kind: 'retry', status: 503, retryAfterMs: 2000, reason: 'answered 503' }, { kind: 'accepted', status: 200 }], { now: clock.now });
    const h = makeRuntime(store.db, { clock, targets: new Map([['home', home], ['inbox', inbox]]) });
    const action = insertForward(store.db, clock.now(), { callback: 'inbox' });
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    h.clock.advance(2000);
    await settle(h.clock, h.runtime);
    expect(inbox.calls.map((call) => call.document?.['status'])).toEqual(['error', 'error']);
    expect(inbox.calls[0]?.id).toBe(inbox.calls[1]?.id);
    expect(inbox.calls[1]?.document).toMatchObject({ runId: action.runId, error: 'target "home" answered 422: bad channel', target: { name: 'home', status: 422 } });
    await h.runtime.stop();
  });

  it('end error when the target takes no callbacks', async () => {
    const clock = createManualClock();
    const home = scriptedTarget('home', [ACCEPTED], { now: clock.now, takesCallbacks: false });
    const h = makeRuntime(store.db, { clock, targets: new Map([['home', home]]) });
    insertRun(store.db, agentAction({ callback: 'home' }), clock.now());
    await h.runtime.start();
    await settle(h.clock, h.runtime);
    const [callback] = rows<{ status: string; error: string }>(store.db, "SELECT status, error FROM runs WHERE kind = 'callback'");
    expect(callback).toEqual({ status: 'error', error: 'target "home" (kind test) takes no callbacks' });
    await h.runtime.stop();
  });
});
