import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyAction } from '../../src/actions/types.js';
import type { ChannelPort, DeliverFn } from '../../src/runtime/ports.js';
import { recoverUnfinished } from '../../src/runtime/recovery.js';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { silentLogger } from '../../src/log.js';
import { fakeProvider, makeRuntime, portOn, rows, settle, tempStore, type TempStore } from './helpers.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

let counter = 0;
function insertNotify(overrides: Partial<NotifyAction> = {}): NotifyAction {
  counter += 1;
  const action: NotifyAction = {
    kind: 'notify',
    runId: `00000000-0000-4000-9000-${String(counter).padStart(12, '0')}`,
    text: 'Payment failed @here',
    name: 'stripe',
    channel: 'telegram',
    to: '-1001',
    origin: { hook: 'stripe' },
    ...overrides,
  };
  store.db
    .prepare("INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, kind) VALUES (?, 0, 'queued', ?, ?, '', ?, 'notify')")
    .run(action.runId, action.origin.hook, action.name, JSON.stringify(action));
  return action;
}

/** A channel that records what it was asked to send and with which options. */
function recordingChannel(calls: Array<{ to: string; text: string; untrusted: boolean }>, fail = false): ChannelPort {
  return {
    name: 'telegram',
    maxMessageChars: 4096,
    async send(to, text, _signal, options) {
      if (fail) throw new Error('telegram is down');
      calls.push({ to, text, untrusted: options?.untrusted === true });
    },
  };
}

/** Like deliverText's contract: passes `untrusted` through to the channel. */
const passThrough: DeliverFn = async (channel, to, text, options) => {
  try {
    await channel.send(to, text, options.signal, options.untrusted === true ? { untrusted: true } : undefined);
    return { status: 'delivered', channel: channel.name, to, parts: 1, attempts: 1 };
  } catch (error) {
    return { status: 'failed', channel: channel.name, to, reason: (error as Error).message, attempts: 1 };
  }
};

describe('notify runs', () => {
  it('deliver their text as untrusted without a model call, summary event or transcript, and end ok', async () => {
    const calls: Array<{ to: string; text: string; untrusted: boolean }> = [];
    const provider = fakeProvider('fake');
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]), channels: new Map([['telegram', recordingChannel(calls)]]), deliver: passThrough });
    h.runtime.start();
    const action = insertNotify();
    h.runtime.notify([action]);
    await settle(h.clock, h.runtime);
    expect(calls).toEqual([{ to: '-1001', text: 'Payment failed @here', untrusted: true }]);
    expect(provider.calls).toEqual([]);
    expect(readRunView(store.db, action.runId)).toMatchObject({
      kind: 'notify',
      status: 'ok',
      summary: 'Notify stripe: delivered to telegram (1 part)',
      delivery: { status: 'delivered', channel: 'telegram', to: '-1001', parts: 1, attempts: 1 },
    });
    expect(rows(store.db, 'SELECT COUNT(*) AS n FROM events')).toEqual([{ n: 0 }]);
    expect(rows(store.db, 'SELECT COUNT(*) AS n FROM transcripts')).toEqual([{ n: 0 }]);
    expect(rows(store.db, 'SELECT COUNT(*) AS n FROM heartbeats')).toEqual([{ n: 0 }]);
    await h.runtime.stop();
  });

  it('end in error with the delivery reason when the channel fails, and can be retried', async () => {
    const h = makeRuntime(store.db, { channels: new Map([['telegram', recordingChannel([], true)]]), deliver: passThrough });
    h.runtime.start();
    const action = insertNotify();
    h.runtime.notify([action]);
    await settle(h.clock, h.runtime);
    expect(readRunView(store.db, action.runId)).toMatchObject({ kind: 'notify', status: 'error', error: 'telegram is down', delivery: { status: 'failed', reason: 'telegram is down' } });
    expect(await h.runtime.retry(action.runId)).toMatchObject({ kind: 'queued' });
    await h.runtime.stop();
  });

  it('that keep being interrupted end interrupted without a main-session summary', async () => {
    const action = insertNotify();
    store.db.prepare("UPDATE runs SET status = 'running', attempts = 2 WHERE run_id = ?").run(action.runId);
    await recoverUnfinished(portOn(store.db), 1000, silentLogger());
    expect(readRunView(store.db, action.runId)).toMatchObject({ kind: 'notify', status: 'interrupted' });
    expect(rows(store.db, 'SELECT COUNT(*) AS n FROM events')).toEqual([{ n: 0 }]);
  });
});
