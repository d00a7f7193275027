import { describe, expect, it } from 'vitest';
import { NOW, contractStores, queueWake } from './fixture.js';
import type { ContractFactory } from './index.js';

const MAIN = 'main';

/** The main session: events, heartbeats, the heartbeat lock and exactly-once consumption. */
export function describeSessionContract(makeStore: ContractFactory): void {
  describe('main session', () => {
    const stores = contractStores(makeStore);

    it('keeps pending events in arrival order and tells which are due', async () => {
      const { store } = await stores.open();
      const first = await store.session.addEvent({ at: NOW, text: 'first', mode: 'next-heartbeat', hook: 'wake' });
      const second = await store.session.addEvent({ at: NOW, text: 'second', mode: 'next-heartbeat', hook: 'agent', runId: 'r1', mappingId: 'm' });
      expect(second).toBeGreaterThan(first);
      expect(await store.session.listPending(10)).toEqual([
        { id: first, created_at: NOW, text: 'first', mode: 'next-heartbeat', trusted: 0 },
        { id: second, created_at: NOW, text: 'second', mode: 'next-heartbeat', trusted: 0 },
      ]);
      expect(await store.session.newestPendingId()).toBe(second);
      expect(await store.session.hasDue(first - 1)).toBe(false);
      expect(await store.session.hasDue(first)).toBe(true);
      await store.session.addEvent({ at: NOW, text: 'now', mode: 'now', hook: 'wake' });
      expect(await store.session.hasDue(0)).toBe(true);
      expect(await store.session.countPending()).toBe(3);
      await store.session.addEvent({ at: NOW + 1, text: 'later', mode: 'next-heartbeat', hook: 'wake' });
      expect([await store.session.countPending(NOW - 1), await store.session.countPending(NOW), await store.session.countPending()]).toEqual([0, 3, 4]);
      const views = await store.session.pendingViews(10, false);
      expect(views.map((view) => [view.mode, view.chars, view.text])).toEqual([
        ['next-heartbeat', 5, undefined],
        ['next-heartbeat', 6, 'second'],
        ['now', 3, undefined],
        ['next-heartbeat', 5, undefined],
      ]);
      expect((await store.session.pendingViews(10, true))[0]?.text).toBe('first');
    });

    it('lists pending events up to the first whose text takes the total past a character budget, and no further', async () => {
      const { store } = await stores.open();
      for (const text of ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40), 'd'.repeat(40), 'e'.repeat(40)]) await queueWake(store, text);
      const texts = async (limit: number, maxChars?: number) => (await store.session.listPending(limit, maxChars)).map((event) => event.text[0]);
      // 40 + 40 + 40 = 120 passes 100: the third is the first that does not fit, the rest wait.
      expect(await texts(10, 100)).toEqual(['a', 'b', 'c']);
      expect(await texts(10, 120)).toEqual(['a', 'b', 'c', 'd']);
      expect(await texts(2, 1000)).toEqual(['a', 'b']);
      // One event alone past the budget is still listed: it must never block the ones behind it.
      expect(await texts(10, 10)).toEqual(['a']);
      expect(await texts(10)).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    it('consumes each event exactly once, ever, and says which ones a heartbeat consumed', async () => {
      const { store } = await stores.open();
      for (const text of ['a', 'b', 'c']) await queueWake(store, text);
      const ids = (await store.session.listPending(10)).map((event) => event.id);
      const one = await store.session.startHeartbeat(NOW, 2);
      const two = await store.session.startHeartbeat(NOW, 3);
      const exchange = { sessionKey: MAIN, user: 'events', assistant: 'HEARTBEAT_OK' };
      const end = (consume: number[]) => ({ status: 'ok' as const, at: NOW + 1, reply: 'HEARTBEAT_OK', consume, exchange });
      const [first, second] = await Promise.all([store.session.finishHeartbeat(one, end(ids.slice(0, 2))), store.session.finishHeartbeat(two, end(ids))]);
      expect([...first, ...second].sort((x, y) => x - y)).toEqual(ids);
      expect(first.filter((id) => second.includes(id))).toEqual([]);
      expect(await store.session.countPending()).toBe(0);
      expect(await store.session.lastHeartbeat()).toMatchObject({ id: two, status: 'ok', event_count: 3 });
    });

    it('records a failed heartbeat without consuming anything', async () => {
      const { store } = await stores.open();
      await queueWake(store, 'stays');
      const [event] = await store.session.listPending(1);
      const id = await store.session.startHeartbeat(NOW, 1);
      expect(await store.session.lastHeartbeat()).toMatchObject({ id, status: 'running', finished_at: null });
      expect(await store.session.finishHeartbeat(id, { status: 'error', at: NOW + 1, error: 'model down' })).toEqual([]);
      expect(await store.session.lastHeartbeat()).toMatchObject({ id, status: 'error', error: 'model down', finished_at: NOW + 1 });
      expect((await store.session.listPending(1))[0]?.id).toBe(event?.id);
    });

    it('records an acknowledged heartbeat with its exchange and skipped delivery, and a later delivery outcome', async () => {
      const { store } = await stores.open();
      await queueWake(store, 'hello');
      const [event] = await store.session.listPending(1);
      const id = await store.session.startHeartbeat(NOW, 1);
      await store.session.finishHeartbeat(id, {
        status: 'ok',
        at: NOW + 1,
        reply: 'HEARTBEAT_OK',
        consume: [event!.id],
        exchange: { sessionKey: MAIN, user: 'prompt', assistant: 'HEARTBEAT_OK' },
        skipped: { channel: 'last', reason: 'acknowledgment' },
      });
      expect(await store.session.recentHeartbeats(5)).toEqual([
        expect.objectContaining({ id, status: 'ok', events: 1, reply: 'HEARTBEAT_OK', delivery: { status: 'skipped', reason: 'acknowledgment' } }),
      ]);
      expect(await store.transcripts.read(MAIN, 1000)).toEqual([
        { role: 'user', content: 'prompt' },
        { role: 'assistant', content: 'HEARTBEAT_OK' },
      ]);
      await store.session.setHeartbeatDelivery(id, { status: 'delivered', channel: 'log', to: 'main', parts: 1, attempts: 1 });
      expect(JSON.parse((await store.session.lastHeartbeat())?.delivery ?? 'null')).toEqual({ status: 'delivered', channel: 'log', to: 'main', parts: 1, attempts: 1 });
    });

    it('runs one heartbeat at a time: a second holder is refused while the first runs, and gets it after', async () => {
      const opened = await stores.open();
      const { store } = opened;
      let release!: () => void;
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const first = store.session.withHeartbeatLock(() => new Promise<string>((resolve) => ((release = () => resolve('first')), holding())));
      // The lock may be taken after an await (a database round trip): until fn runs, a second
      // caller may win the race, which is no overlap. Only a holder that runs excludes the others.
      await held;
      let called = false;
      expect(await store.session.withHeartbeatLock(async () => (called = true))).toEqual({ held: false });
      if (opened.sibling !== undefined && opened.concurrentInstances === true) {
        const other = await opened.sibling();
        expect(await other.session.withHeartbeatLock(async () => (called = true))).toEqual({ held: false });
      }
      expect(called).toBe(false);
      release();
      expect(await first).toEqual({ held: true, value: 'first' });
      expect(await store.session.withHeartbeatLock(async () => 'second')).toEqual({ held: true, value: 'second' });
      await expect(store.session.withHeartbeatLock(() => Promise.reject(new Error('turn failed')))).rejects.toThrow('turn failed');
      expect(await store.session.withHeartbeatLock(async () => 'released after a failure')).toEqual({ held: true, value: 'released after a failure' });
    });

    it('closes the heartbeat a dead instance left running; its events stay pending', async (context) => {
      const opened = await stores.open();
      if (opened.sibling === undefined) return context.skip();
      const { store } = opened;
      await queueWake(store, 'not lost');
      const next = await opened.sibling();
      const id = await store.session.startHeartbeat(NOW, 1);
      await store.close(); // the instance that ran it is gone
      expect(await next.session.closeAbandonedHeartbeats(NOW + 1)).toBe(1);
      expect(await next.session.lastHeartbeat()).toMatchObject({ id, status: 'error', error: 'interrupted by a restart' });
      expect(await next.session.countPending()).toBe(1);
    });
  });
}
