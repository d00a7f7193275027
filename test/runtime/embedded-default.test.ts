import { afterEach, beforeEach, expect, it } from 'vitest';
import { createChannels } from '../../src/channels/index.js';
import { silentLogger } from '../../src/log.js';
import { createProviders } from '../../src/providers/index.js';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { agentAction, insertRun, insertWake, makeDefaults, makeRuntime, rows, settle, tempStore, type TempStore } from './helpers.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

it('runs on the embedded default: the echo provider and the log channel through the real deliverText', async () => {
  const logger = silentLogger();
  const refuse = (() => Promise.reject(new Error('no network in this test'))) as typeof fetch;
  const h = makeRuntime(store.db, {
    defaults: makeDefaults({ model: 'echo/echo', delivery: { channel: 'log' } }),
    providers: createProviders({}, { fetch: refuse, logger }),
    channels: createChannels({}, { fetch: refuse, logger }),
    deliver: 'real',
    logger,
  });
  h.runtime.start();
  const action = insertRun(store.db, agentAction({ name: 'Echo', message: 'ping', deliver: true, wakeMode: 'now' }), h.clock.now());
  insertWake(store.db, 'a wake event', 'now', h.clock.now());
  h.runtime.notify([action]);
  await settle(h.clock, h.runtime);
  expect(readRunView(store.db, action.runId)).toMatchObject({
    status: 'ok',
    summary: 'Hook Echo: Echo: ping',
    delivery: { status: 'delivered', channel: 'log', to: 'main', parts: 1, attempts: 1 },
  });
  const texts = rows<{ text: string }>(store.db, 'SELECT text FROM deliveries ORDER BY id').map((row) => row.text);
  expect(texts[0]).toBe('Echo: ping');
  expect(texts.length).toBeGreaterThan(1);
  // Every event here came from a hook, so the heartbeat prompt is one envelope; the echo repeats
  // the events' lines from inside it, not the security notice.
  expect(texts.slice(1).every((text) => text.startsWith('Echo: System: [') && !text.includes('SECURITY NOTICE'))).toBe(true);
  expect(rows(store.db, "SELECT id FROM events WHERE status = 'pending'")).toEqual([]);
  await h.runtime.stop();
});
