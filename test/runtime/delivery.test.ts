import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { getState, setState } from '../../src/store/sqlite/state-queries.js';
import { agentAction, fakeChannel, fakeProvider, insertRun, makeDefaults, makeRuntime, rows, settle, tempStore, type Sent, type TempStore } from './helpers.js';
import type { AgentAction } from '../../src/actions/types.js';
import type { Harness } from './helpers.js';
import { createRecipientPolicy } from '../../src/channels/recipients.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

async function runOne(h: Harness, overrides: Partial<AgentAction>): Promise<ReturnType<typeof readRunView>> {
  const action = insertRun(store.db, agentAction({ deliver: true, ...overrides }), h.clock.now());
  h.runtime.notify([action]);
  await settle(h.clock, h.runtime);
  h.clock.advance(1);
  return readRunView(store.db, action.runId);
}

describe('delivery routing', () => {
  it('sends last with no history to agents.defaults.delivery; a run\'s delivery does not become the main session\'s route', async () => {
    const sent: Sent[] = [];
    const h = makeRuntime(store.db, {
      defaults: makeDefaults({ delivery: { channel: 'telegram', to: '1001' } }),
      channels: new Map([['telegram', fakeChannel('telegram', sent)]]),
    });
    h.runtime.start();
    const view = await runOne(h, { message: 'ping' });
    expect(view?.status).toBe('ok');
    expect(view?.delivery).toEqual({ status: 'delivered', channel: 'telegram', to: '1001', parts: 1, attempts: 1 });
    expect(sent).toEqual([{ channel: 'telegram', to: '1001', text: 'reply to: ping' }]);
    expect(getState(store.db, 'last_route')).toBeUndefined();
    expect(getState(store.db, 'last_to:telegram')).toBeUndefined();
    await h.runtime.stop();
  });

  it('falls back to whatsapp for last without history or default, and records a failed outcome when it is not configured', async () => {
    const h = makeRuntime(store.db);
    h.runtime.start();
    const view = await runOne(h, {});
    expect(view?.status).toBe('ok');
    expect(view?.delivery).toEqual({ status: 'failed', channel: 'whatsapp', reason: 'channel "whatsapp" is not configured', attempts: 0 });
    expect(rows(store.db, 'SELECT channel, status, reason FROM deliveries')).toEqual([
      { channel: 'whatsapp', status: 'failed', reason: 'channel "whatsapp" is not configured' },
    ]);
    await h.runtime.stop();
  });

  it('records a failed outcome when no recipient can be resolved, leaving the run ok', async () => {
    const sent: Sent[] = [];
    const h = makeRuntime(store.db, { channels: new Map([['slack', fakeChannel('slack', sent)]]) });
    h.runtime.start();
    const view = await runOne(h, { channel: 'slack' });
    expect(view?.status).toBe('ok');
    expect(view?.delivery).toMatchObject({ status: 'failed', channel: 'slack', attempts: 0 });
    expect(view?.delivery?.status === 'failed' && view.delivery.reason).toMatch(/^no recipient for channel "slack"/);
    expect(sent).toEqual([]);
    await h.runtime.stop();
  });

  it('routes last to the main session\'s route and an omitted to to the main session\'s last recipient on that channel', async () => {
    const sent: Sent[] = [];
    const h = makeRuntime(store.db, {
      channels: new Map([
        ['discord', fakeChannel('discord', sent)],
        ['slack', fakeChannel('slack', sent)],
      ]),
    });
    // What the main session's own deliveries leave (runs never write these).
    setState(store.db, 'last_route', JSON.stringify({ channel: 'slack', to: 'S9' }));
    setState(store.db, 'last_to:discord', 'C1');
    h.runtime.start();
    await runOne(h, { channel: 'last', message: 'c' });
    await runOne(h, { channel: 'discord', message: 'd' });
    await runOne(h, { channel: 'discord', to: 'C2', message: 'e' });
    expect(sent.map((s) => `${s.channel}:${s.to}:${s.text}`)).toEqual(['slack:S9:reply to: c', 'discord:C1:reply to: d', 'discord:C2:reply to: e']);
    await h.runtime.stop();
  });

  it('keeps the text of a log-channel delivery in the store and needs no recipient there', async () => {
    const sent: Sent[] = [];
    const h = makeRuntime(store.db, { channels: new Map([['log', fakeChannel('log', sent)]]) });
    h.runtime.start();
    const view = await runOne(h, { channel: 'log', message: 'keep me' });
    expect(view?.delivery).toMatchObject({ status: 'delivered', channel: 'log', to: 'main' });
    expect(rows(store.db, 'SELECT channel, recipient, status, text, run_id FROM deliveries')).toEqual([
      { channel: 'log', recipient: 'main', status: 'delivered', text: 'reply to: keep me', run_id: view?.runId },
    ]);
    await h.runtime.stop();
  });

  it('skips delivery when deliver is false or the reply is only a heartbeat acknowledgment', async () => {
    const sent: Sent[] = [];
    const provider = fakeProvider('fake', (call) => (call.messages.at(-1)?.content === 'quiet' ? 'HEARTBEAT_OK' : 'loud'));
    const h = makeRuntime(store.db, { providers: new Map([['fake', provider]]), channels: new Map([['log', fakeChannel('log', sent)]]) });
    h.runtime.start();
    const quiet = await runOne(h, { channel: 'log', message: 'quiet' });
    const muted = await runOne(h, { channel: 'log', message: 'x', deliver: false });
    expect(quiet?.delivery).toEqual({ status: 'skipped', reason: 'the reply is only a heartbeat acknowledgment' });
    expect(muted?.delivery).toEqual({ status: 'skipped', reason: 'deliver is false' });
    expect(sent).toEqual([]);
    await h.runtime.stop();
  });

  it('commits a skipped delivery with the end of its run: when one of them cannot be written, neither is', async () => {
    const h = makeRuntime(store.db);
    h.runtime.start();
    store.db.exec("CREATE TRIGGER refuse_skips BEFORE INSERT ON deliveries WHEN NEW.status = 'skipped' BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    const refused = await runOne(h, { channel: 'log', message: 'x', deliver: false });
    expect(refused?.status).toBe('running'); // left for recovery at the next start, not finished without its delivery
    expect(refused?.delivery).toBeUndefined();
    expect(rows(store.db, 'SELECT COUNT(*) AS n FROM events WHERE run_id = ?', refused?.runId ?? '')).toEqual([{ n: 0 }]);
    store.db.exec('DROP TRIGGER refuse_skips');
    const recorded = await runOne(h, { channel: 'log', message: 'y', deliver: false });
    expect(recorded).toMatchObject({ status: 'ok', delivery: { status: 'skipped', reason: 'deliver is false' } });
    expect(rows(store.db, "SELECT status, reason FROM deliveries WHERE run_id = ?", recorded?.runId ?? '')).toEqual([{ status: 'skipped', reason: 'deliver is false' }]);
    await h.runtime.stop();
  });

  it('does not let a failing channel affect other runs', async () => {
    const sent: Sent[] = [];
    const h = makeRuntime(store.db, {
      channels: new Map([
        ['telegram', fakeChannel('telegram', sent, 'telegram: 403 Forbidden: bot was blocked by the user')],
        ['slack', fakeChannel('slack', sent)],
      ]),
    });
    h.runtime.start();
    const bad = insertRun(store.db, agentAction({ deliver: true, channel: 'telegram', to: '7' }), h.clock.now());
    const good = insertRun(store.db, agentAction({ deliver: true, channel: 'slack', to: 'C' }), h.clock.now());
    h.runtime.notify([bad, good]);
    await settle(h.clock, h.runtime);
    expect(readRunView(store.db, bad.runId)).toMatchObject({
      status: 'ok',
      delivery: { status: 'failed', channel: 'telegram', reason: 'telegram: 403 Forbidden: bot was blocked by the user' },
    });
    expect(readRunView(store.db, good.runId)).toMatchObject({ status: 'ok', delivery: { status: 'delivered', channel: 'slack' } });
    expect(getState(store.db, 'last_route')).toBeUndefined();
    await h.runtime.stop();
  });
});

describe('a hook request cannot steer the main session', () => {
  const HEARTBEAT = 'You have mail.';
  const replyOf = (call: { messages: Array<{ role: string; content: string }> }): string => (call.messages[0]?.role === 'system' ? HEARTBEAT : 'run reply');

  it('keeps heartbeat replies on the main session\'s route after a run delivered to a caller-chosen recipient', async () => {
    const sent: Sent[] = [];
    const h = makeRuntime(store.db, {
      defaults: makeDefaults({ delivery: { channel: 'telegram', to: 'owner' } }),
      providers: new Map([['fake', fakeProvider('fake', replyOf)]]),
      channels: new Map([['telegram', fakeChannel('telegram', sent)]]),
    });
    h.runtime.start();
    const attack = await runOne(h, { channel: 'telegram', to: 'attacker', wakeMode: 'now' });
    expect(attack?.delivery).toMatchObject({ status: 'delivered', to: 'attacker' });
    // The summary's heartbeat and every later one still reply to the owner, not to the attacker.
    const later = await runOne(h, { channel: 'last', wakeMode: 'now' });
    expect(later?.delivery).toMatchObject({ status: 'delivered', channel: 'telegram', to: 'owner' });
    const heartbeatReplies = sent.filter((message) => message.text === HEARTBEAT);
    expect(heartbeatReplies.length).toBeGreaterThan(0);
    expect(heartbeatReplies.every((message) => message.to === 'owner')).toBe(true);
    // Nor does a run that names the channel without a recipient inherit the attacker's.
    const sameChannel = await runOne(h, { channel: 'telegram' });
    expect(sameChannel?.delivery).toMatchObject({ status: 'delivered', to: 'owner' });
    expect(JSON.parse(getState(store.db, 'last_route') ?? 'null')).toEqual({ channel: 'telegram', to: 'owner' });
    await h.runtime.stop();
  });

  it('fails a delivery to a recipient outside channels.<id>.allowTo, whatever route led there', async () => {
    const sent: Sent[] = [];
    const h = makeRuntime(store.db, {
      defaults: makeDefaults({ delivery: { channel: 'telegram', to: 'stale' } }),
      channels: new Map([['telegram', fakeChannel('telegram', sent)]]),
      recipients: createRecipientPolicy({ telegram: { allowTo: ['owner'] } }),
    });
    h.runtime.start();
    const view = await runOne(h, { channel: 'last' });
    expect(view?.delivery).toEqual({ status: 'failed', channel: 'telegram', to: 'stale', reason: 'recipient is not in channels.telegram.allowTo', attempts: 0 });
    expect(sent).toEqual([]);
    await h.runtime.stop();
  });
});
