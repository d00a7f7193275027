import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { createLogger } from '../../src/log.js';
import {
  agentAction,
  blockingProvider,
  fakeProvider,
  insertRun,
  makeDefaults,
  makeRuntime,
  rows,
  settle,
  tempStore,
  turn,
  type TempStore,
  lastContent,
  promptEvents,
} from './helpers.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

function summaries(): string[] {
  return rows<{ text: string }>(store.db, 'SELECT text FROM events WHERE run_id IS NOT NULL ORDER BY id').map((row) => row.text);
}

describe('agent runs', () => {
  it('runs queued runs with at most maxConcurrent provider calls in flight', async () => {
    const provider = blockingProvider('fake');
    const h = makeRuntime(store.db, { defaults: makeDefaults({ maxConcurrent: 3 }), providers: new Map([['fake', provider]]) });
    h.runtime.start();
    const actions = Array.from({ length: 8 }, () => insertRun(store.db, agentAction(), h.clock.now()));
    h.runtime.notify(actions);
    await turn(h.clock);
    expect(provider.inFlight()).toBe(3);
    expect(rows(store.db, "SELECT run_id FROM runs WHERE status = 'running'")).toHaveLength(3);
    for (let round = 0; round < 5 && provider.calls.length < 8; round += 1) {
      provider.releaseAll();
      await turn(h.clock);
      expect(provider.inFlight()).toBeLessThanOrEqual(3);
    }
    provider.releaseAll();
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(8);
    expect(provider.maxInFlight()).toBe(3);
    expect(rows(store.db, "SELECT run_id FROM runs WHERE status = 'ok'")).toHaveLength(8);
    await h.runtime.stop();
  });

  it('aborts a run at its timeout, records it as timeout and posts a (timeout) summary', async () => {
    const provider = blockingProvider('fake');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    const action = insertRun(store.db, agentAction({ name: 'GitHub' }), h.clock.now());
    h.runtime.notify([action]);
    await turn(h.clock);
    expect(provider.inFlight()).toBe(1);
    h.clock.advance(600_000 - 1);
    await turn(h.clock);
    expect(readRunView(store.db, action.runId)?.status).toBe('running');
    h.clock.advance(1);
    await settle(h.clock, h.runtime);
    expect(provider.inFlight()).toBe(0);
    const view = readRunView(store.db, action.runId);
    expect(view).toMatchObject({ status: 'timeout', error: 'run exceeded 600 s', summary: 'Hook GitHub (timeout): run exceeded 600 s' });
    expect(summaries()).toEqual(['Hook GitHub (timeout): run exceeded 600 s']);
    await h.runtime.stop();
  });

  it('uses the action timeoutSeconds over the default and stops waiting even when the provider ignores the abort', async () => {
    const provider = blockingProvider('fake');
    provider.ignoreAbort = true;
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    const action = insertRun(store.db, agentAction({ timeoutSeconds: 5 }), h.clock.now());
    h.runtime.notify([action]);
    await turn(h.clock);
    h.clock.advance(5000);
    await settle(h.clock, h.runtime);
    expect(readRunView(store.db, action.runId)).toMatchObject({ status: 'timeout', error: 'run exceeded 5 s' });
    provider.releaseAll();
    await h.runtime.stop();
  });

  it('records an error naming the provider when the model names an unknown provider', async () => {
    const h = makeRuntime(store.db);
    h.runtime.start();
    const action = insertRun(store.db, agentAction({ name: 'CI', model: 'nowhere/gpt' }), h.clock.now());
    h.runtime.notify([action]);
    await settle(h.clock, h.runtime);
    const view = readRunView(store.db, action.runId);
    expect(view?.status).toBe('error');
    expect(view?.error).toBe('unknown provider "nowhere" (model "nowhere/gpt"); configured providers: fake');
    expect(summaries()).toEqual([`Hook CI (error): ${view?.error ?? ''}`]);
    await h.runtime.stop();
  });

  it('sends the model after the first slash and the thinking level to the provider, defaulting to defaults.model', async () => {
    const provider = fakeProvider('fake');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    const first = insertRun(store.db, agentAction({ model: 'fake/org/model-b', thinking: 'high' }), h.clock.now());
    const second = insertRun(store.db, agentAction(), h.clock.now() + 1);
    h.runtime.notify([first, second]);
    await settle(h.clock, h.runtime);
    expect(provider.calls.map((call) => [call.model, call.thinking])).toEqual([
      ['org/model-b', 'high'],
      ['model-a', undefined],
    ]);
    await h.runtime.stop();
  });

  it('continues the conversation of a reused session key with the earlier exchange', async () => {
    const provider = fakeProvider('fake');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    const first = insertRun(store.db, agentAction({ sessionKey: 'hook:thread-1', message: 'hello' }), h.clock.now());
    h.runtime.notify([first]);
    await settle(h.clock, h.runtime);
    const other = insertRun(store.db, agentAction({ sessionKey: 'hook:other', message: 'unrelated' }), h.clock.now());
    const second = insertRun(store.db, agentAction({ sessionKey: 'hook:thread-1', message: 'and again' }), h.clock.now() + 1);
    h.runtime.notify([other, second]);
    await settle(h.clock, h.runtime);
    const call = provider.calls.find((c) => c.messages.at(-1)?.content === 'and again');
    expect(call?.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'reply to: hello' },
      { role: 'user', content: 'and again' },
    ]);
    expect(provider.calls.find((c) => c.messages.at(-1)?.content === 'unrelated')?.messages).toHaveLength(1);
    await h.runtime.stop();
  });

  it('drops the oldest exchanges first when the history exceeds its character budget', async () => {
    const provider = fakeProvider('fake', () => 'r'.repeat(10));
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]), historyBudgetChars: 45 });
    h.runtime.start();
    for (const message of ['one-one-on', 'two-two-tw', 'three-thre']) {
      h.runtime.notify([insertRun(store.db, agentAction({ sessionKey: 'hook:s', message }), h.clock.now())]);
      await settle(h.clock, h.runtime);
      h.clock.advance(1);
    }
    h.runtime.notify([insertRun(store.db, agentAction({ sessionKey: 'hook:s', message: 'four' }), h.clock.now())]);
    await settle(h.clock, h.runtime);
    expect(provider.calls.at(-1)?.messages.map((m) => m.content)).toEqual(['two-two-tw', 'r'.repeat(10), 'three-thre', 'r'.repeat(10), 'four']);
    await h.runtime.stop();
  });

  it('posts "Hook <name>: <reply>" single-lined and cut, with the run id, hook and wake mode of the run', async () => {
    const provider = fakeProvider('fake', () => `line one\n\nline   two ${'z'.repeat(600)}`);
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    const action = insertRun(store.db, agentAction({ name: 'Gmail', origin: { hook: 'gmail', mappingId: 'gmail' } }), h.clock.now());
    h.runtime.notify([action]);
    await settle(h.clock, h.runtime);
    const [event] = rows<{ text: string; hook: string; run_id: string; mode: string; mapping_id: string }>(
      store.db,
      'SELECT text, hook, run_id, mode, mapping_id FROM events',
    );
    expect(event?.text.startsWith('Hook Gmail: line one line two zzz')).toBe(true);
    expect(Array.from(event?.text.slice('Hook Gmail: '.length) ?? '')).toHaveLength(500);
    expect(event?.text.endsWith('…')).toBe(true);
    expect(event).toMatchObject({ hook: 'gmail', run_id: action.runId, mode: 'next-heartbeat', mapping_id: 'gmail' });
    await h.runtime.stop();
  });

  it('asks for a heartbeat at once after a run whose wakeMode is now', async () => {
    const provider = fakeProvider('fake', (call) => (call.messages[0]?.role === 'system' ? 'HEARTBEAT_OK' : 'run reply'));
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    h.runtime.notify([insertRun(store.db, agentAction({ name: 'Now', wakeMode: 'now' }), h.clock.now())]);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(2);
    expect(promptEvents(lastContent(provider.calls[1]))).toMatch(/^System: \[[^\]]+\] Hook Now: run reply$/);
    expect(rows(store.db, "SELECT id FROM events WHERE status = 'pending'")).toEqual([]);
    await h.runtime.stop();
  });

  it('logs a digest of a failed run\'s reason, never the request fields it quotes', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
    const h = makeRuntime(store.db, { logger });
    h.runtime.start();
    const action = insertRun(store.db, agentAction({ model: 'secret-model-name' }), h.clock.now());
    h.runtime.notify([action]);
    await settle(h.clock, h.runtime);
    await h.runtime.stop();
    const finished = lines.find((line) => line['event'] === 'run.finished');
    expect(finished).toMatchObject({ status: 'error', reason: { sha256: expect.stringMatching(/^[0-9a-f]{12}$/), length: expect.any(Number) } });
    expect(JSON.stringify(lines)).not.toContain('secret-model-name');
    expect(readRunView(store.db, action.runId)?.error).toContain('secret-model-name');
  });
});
