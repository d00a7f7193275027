import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HEARTBEAT_INSTRUCTIONS } from '../../src/runtime/main-session.js';
import { BACKOFF_BASE_MS } from '../../src/runtime/heartbeat.js';
import {
  blockingProvider,
  fakeChannel,
  fakeProvider,
  insertWake,
  makeDefaults,
  makeRuntime,
  rows,
  settle,
  tempStore,
  turn,
  type Sent,
  type TempStore,
  lastContent,
  promptEvents,
} from './helpers.js';

const wakeNow = { kind: 'wake', text: 'x', mode: 'now', origin: { hook: 'wake' } } as const;

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

describe('heartbeat scheduling', () => {
  it('turns many wake-now notifications arriving together into one heartbeat turn holding every event', async () => {
    const provider = fakeProvider('fake', () => 'HEARTBEAT_OK');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    for (let i = 0; i < 20; i += 1) {
      insertWake(store.db, `event ${i}`, 'now', h.clock.now());
      h.runtime.notify([wakeNow]);
    }
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(1);
    const prompt = promptEvents(lastContent(provider.calls[0]));
    expect(prompt.split('\n')).toHaveLength(20);
    expect(prompt.split('\n')[0]).toBe(`System: [${new Date(h.clock.now()).toISOString()}] event 0`);
    expect(provider.calls[0]?.messages[0]).toEqual({ role: 'system', content: HEARTBEAT_INSTRUCTIONS });
    expect(rows(store.db, "SELECT id FROM events WHERE status = 'pending'")).toEqual([]);
    await h.runtime.stop();
  });

  it('never runs two heartbeats at once and answers requests made during one with exactly one follow-up', async () => {
    const provider = blockingProvider('fake', 'HEARTBEAT_OK');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    insertWake(store.db, 'first', 'now', h.clock.now());
    h.runtime.notify([wakeNow]);
    await turn(h.clock);
    expect(provider.inFlight()).toBe(1);
    for (let i = 0; i < 5; i += 1) {
      insertWake(store.db, `during ${i}`, 'now', h.clock.now());
      h.runtime.notify([wakeNow]);
      await turn(h.clock);
    }
    expect(provider.calls).toHaveLength(1);
    provider.releaseAll();
    await turn(h.clock);
    expect(provider.calls).toHaveLength(2);
    expect(promptEvents(lastContent(provider.calls[1])).split('\n')).toHaveLength(5);
    provider.releaseAll();
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(2);
    expect(provider.maxInFlight()).toBe(1);
    await h.runtime.stop();
  });

  it('does nothing on a periodic tick with no pending events', async () => {
    const provider = fakeProvider('fake');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    h.clock.advance(3 * 30 * 60_000);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(0);
    expect(rows(store.db, 'SELECT id FROM heartbeats')).toEqual([]);
    await h.runtime.stop();
  });

  it('leaves next-heartbeat events for the periodic tick, then takes them', async () => {
    const provider = fakeProvider('fake', () => 'HEARTBEAT_OK');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    insertWake(store.db, 'later', 'next-heartbeat', h.clock.now());
    h.runtime.notify([{ ...wakeNow, mode: 'next-heartbeat' }]);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(0);
    h.clock.advance(30 * 60_000 - 1);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(0);
    h.clock.advance(1);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(1);
    await h.runtime.stop();
  });
});

describe('prompt budget', () => {
  it('carries events that do not fit over to later heartbeats and consumes each exactly once', async () => {
    const provider = fakeProvider('fake', () => 'HEARTBEAT_OK');
    const defaults = makeDefaults({ heartbeat: { every: '30m', ackMaxChars: 300, promptBudgetChars: 300 } });
    const h = makeRuntime(store.db, { defaults, providers: new Map([['fake', provider]]) });
    const texts = Array.from({ length: 25 }, (_, i) => `event number ${i} ${'x'.repeat(i * 3)}`);
    for (const text of texts) insertWake(store.db, text, 'now', h.clock.now());
    h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(provider.calls.length).toBeGreaterThan(3);
    const seen = provider.calls.flatMap((call) => promptEvents(lastContent(call)).split('\n').map((line) => line.replace(/^System: \[[^\]]+\] /, '')));
    expect(seen).toEqual(texts);
    for (const call of provider.calls) expect(promptEvents(lastContent(call)).length).toBeLessThanOrEqual(300);
    const events = rows<{ status: string; heartbeat_id: number }>(store.db, 'SELECT status, heartbeat_id FROM events ORDER BY id');
    expect(events.every((event) => event.status === 'consumed')).toBe(true);
    expect(new Set(events.map((event) => event.heartbeat_id)).size).toBe(provider.calls.length);
    await h.runtime.stop();
  });

  it('drains a next-heartbeat backlog larger than the budget on one periodic tick, leaving later arrivals for the next', async () => {
    const provider = fakeProvider('fake', () => 'HEARTBEAT_OK');
    const defaults = makeDefaults({ heartbeat: { every: '1h', ackMaxChars: 300, promptBudgetChars: 256 } });
    const h = makeRuntime(store.db, { defaults, providers: new Map([['fake', provider]]) });
    h.runtime.start();
    for (let i = 0; i < 12; i += 1) insertWake(store.db, `queued event ${i}`, 'next-heartbeat', h.clock.now());
    h.clock.advance(3_600_000);
    await settle(h.clock, h.runtime);
    expect(provider.calls.length).toBeGreaterThan(1);
    expect(rows(store.db, "SELECT id FROM events WHERE status = 'pending'")).toEqual([]);
    const calls = provider.calls.length;
    insertWake(store.db, 'after the tick', 'next-heartbeat', h.clock.now());
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(calls);
    await h.runtime.stop();
  });

  it('sends an event larger than the whole budget alone, cut with a note, and keeps its full text in the store', async () => {
    const provider = fakeProvider('fake', () => 'HEARTBEAT_OK');
    const defaults = makeDefaults({ heartbeat: { every: '30m', ackMaxChars: 300, promptBudgetChars: 256 } });
    const h = makeRuntime(store.db, { defaults, providers: new Map([['fake', provider]]) });
    const huge = 'y'.repeat(5000);
    insertWake(store.db, huge, 'now', h.clock.now());
    insertWake(store.db, 'small one', 'now', h.clock.now());
    h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(2);
    const first = promptEvents(lastContent(provider.calls[0]));
    expect(first.length).toBeLessThanOrEqual(256);
    expect(first).toMatch(/\[event 1 truncated: \d+ of 5000 characters shown; the full text stays in the store\]$/);
    expect(promptEvents(lastContent(provider.calls[1]))).toMatch(/\] small one$/);
    expect(rows(store.db, 'SELECT text FROM events WHERE id = 1')).toEqual([{ text: huge }]);
    await h.runtime.stop();
  });
});

describe('heartbeat outcome', () => {
  it('refuses a zero heartbeat period as a configuration error', () => {
    const defaults = makeDefaults({ heartbeat: { every: '0m', ackMaxChars: 300, promptBudgetChars: 16000 } });
    expect(() => makeRuntime(store.db, { defaults })).toThrow(/heartbeat\/every: invalid duration "0m"/);
  });

  it('keeps the events pending after a failed turn and retries after a backoff', async () => {
    let fail = true;
    const provider = fakeProvider('fake', () => {
      if (fail) throw new Error('provider "fake": HTTP 500');
      return 'HEARTBEAT_OK';
    });
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    insertWake(store.db, 'important', 'now', h.clock.now());
    h.runtime.start();
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(1);
    expect(rows(store.db, "SELECT id FROM events WHERE status = 'pending'")).toHaveLength(1);
    expect(rows(store.db, 'SELECT status, error FROM heartbeats')).toEqual([{ status: 'error', error: 'provider "fake": HTTP 500' }]);
    h.runtime.notify([wakeNow]);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(1);
    fail = false;
    h.clock.advance(BACKOFF_BASE_MS);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(2);
    expect(rows(store.db, "SELECT id FROM events WHERE status = 'pending'")).toEqual([]);
    await h.runtime.stop();
  });

  it('delivers nothing when the reply is only the acknowledgment token', async () => {
    const sent: Sent[] = [];
    const provider = fakeProvider('fake', () => '  HEARTBEAT_OK \n');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]), channels: new Map([['log', fakeChannel('log', sent)]]) });
    h.runtime.start();
    insertWake(store.db, 'nothing to see', 'now', h.clock.now());
    h.runtime.notify([wakeNow]);
    await settle(h.clock, h.runtime);
    expect(provider.calls).toHaveLength(1);
    expect(sent).toEqual([]);
    const [beat] = rows<{ delivery: string }>(store.db, 'SELECT delivery FROM heartbeats');
    expect(JSON.parse(beat?.delivery ?? 'null')).toEqual({ status: 'skipped', reason: 'the reply is only a heartbeat acknowledgment' });
    await h.runtime.stop();
  });

  it('commits the skipped delivery of an acknowledgment with the end of the heartbeat: when it cannot be written, the events stay pending', async () => {
    const provider = fakeProvider('fake', () => 'HEARTBEAT_OK');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]) });
    h.runtime.start();
    store.db.exec("CREATE TRIGGER refuse_skips BEFORE INSERT ON deliveries WHEN NEW.status = 'skipped' BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    insertWake(store.db, 'anything new?', 'now', h.clock.now());
    h.runtime.notify([wakeNow]);
    await settle(h.clock, h.runtime);
    expect(provider.calls.length).toBeGreaterThanOrEqual(1);
    expect(rows(store.db, "SELECT status FROM events")).toEqual([{ status: 'pending' }]);
    expect(rows(store.db, "SELECT COUNT(*) AS n FROM heartbeats WHERE status = 'ok'")).toEqual([{ n: 0 }]);
    expect(rows(store.db, 'SELECT COUNT(*) AS n FROM deliveries')).toEqual([{ n: 0 }]);
    await h.runtime.stop();
  });

  it('delivers any other reply to the main session last route and keeps the exchange in the main transcript', async () => {
    const sent: Sent[] = [];
    const provider = fakeProvider('fake', () => 'You have mail.');
    const defaults = makeDefaults({ delivery: { channel: 'telegram', to: '42' } });
    const h = makeRuntime(store.db, { defaults, providers: new Map([['fake', provider]]), channels: new Map([['telegram', fakeChannel('telegram', sent)]]) });
    h.runtime.start();
    insertWake(store.db, 'mail arrived', 'now', h.clock.now());
    h.runtime.notify([wakeNow]);
    await settle(h.clock, h.runtime);
    expect(sent).toEqual([{ channel: 'telegram', to: '42', text: 'You have mail.' }]);
    const transcript = rows<{ role: string; content: string }>(store.db, "SELECT role, content FROM transcripts WHERE session_key = 'main' ORDER BY seq");
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(promptEvents(transcript[0]?.content ?? '')).toMatch(/\] mail arrived$/);
    insertWake(store.db, 'second', 'now', h.clock.now());
    h.runtime.notify([wakeNow]);
    await settle(h.clock, h.runtime);
    expect(provider.calls[1]?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    await h.runtime.stop();
  });
});
