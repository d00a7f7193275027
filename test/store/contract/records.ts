import { describe, expect, it } from 'vitest';
import { NOW, contractStores, queueRun } from './fixture.js';
import type { ContractFactory } from './index.js';

/** Deliveries and the main session's last route, shared key-values, transcripts, the Gmail source's rows. */
export function describeRecordsContract(makeStore: ContractFactory): void {
  describe('records', () => {
    const stores = contractStores(makeStore);

    it('remembers the route of a heartbeat delivery it is told to remember, and only that', async () => {
      const { store } = await stores.open();
      expect(await store.deliveries.lastRoute()).toBeUndefined();
      await store.deliveries.record({ at: NOW, runId: 'r1', channel: 'telegram', recipient: '7', status: 'delivered' });
      expect(await store.deliveries.lastRoute()).toBeUndefined();
      expect(await store.deliveries.lastRecipient('telegram')).toBeUndefined();
      await store.deliveries.record({ at: NOW, heartbeatId: 1, channel: 'slack', recipient: 'C1', status: 'delivered' }, { channel: 'slack', to: 'C1' });
      await store.deliveries.record({ at: NOW, heartbeatId: 2, channel: 'telegram', recipient: '9', status: 'delivered' }, { channel: 'telegram', to: '9' });
      await store.deliveries.record({ at: NOW, heartbeatId: 3, channel: 'slack', status: 'failed', reason: 'HTTP 500' });
      expect(await store.deliveries.lastRoute()).toEqual({ channel: 'telegram', to: '9' });
      expect(await store.deliveries.lastRecipient('slack')).toBe('C1');
      expect(await store.deliveries.lastRecipient('telegram')).toBe('9');
    });

    it('keeps the last value of a state key', async () => {
      const { store } = await stores.open();
      expect(await store.state.get('config.reload')).toBeUndefined();
      await store.state.set('config.reload', '{"ok":1}');
      await store.state.set('config.reload', '{"ok":2}');
      expect(await store.state.get('config.reload')).toBe('{"ok":2}');
    });

    it('claims a state key once: later claims, from a sibling too, get the first value', async () => {
      const { store, sibling } = await stores.open();
      expect(await store.state.claim('log_digest_key', 'first')).toBe('first');
      expect(await store.state.claim('log_digest_key', 'second')).toBe('first');
      if (sibling !== undefined) expect(await (await sibling()).state.claim('log_digest_key', 'third')).toBe('first');
      expect(await store.state.get('log_digest_key')).toBe('first');
    });

    it('reads a transcript within a budget: newest exchanges, whole, never starting with a reply', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      const exchanges = [
        ['q1', 'a1'],
        ['q2', 'answer two'],
        ['q3', 'a3'],
      ] as const;
      for (const [user, assistant] of exchanges) {
        const run = await queueRun(store);
        await store.runs.finish(run.runId, { status: 'ok', at: NOW, summary: 's', reply: assistant, exchange: { sessionKey: action.sessionKey, user, assistant } });
      }
      expect(await store.transcripts.read(action.sessionKey, 100)).toHaveLength(6);
      // 'answer two' (10) + 'q3' + 'a3' fit 14 characters, 'q2' would not: the reply without its question is dropped too.
      expect(await store.transcripts.read(action.sessionKey, 14)).toEqual([
        { role: 'user', content: 'q3' },
        { role: 'assistant', content: 'a3' },
      ]);
      expect(await store.transcripts.read('nobody', 100)).toEqual([]);
    });

    it('keeps the Gmail source rows: a history id that never moves back, admitted ids forever, errors', async () => {
      const { store } = await stores.open();
      const account = 'me@example.com';
      expect(await store.gmail.read(account)).toBeUndefined();
      await store.gmail.saveHistoryId(account, '100');
      await store.gmail.saveHistoryId(account, '99');
      await store.gmail.saveHistoryId(account, '18446744073709551615');
      await store.gmail.saveWatch(account, NOW + 1000, 'pull');
      await store.gmail.saveError(account, 'quota');
      expect(await store.gmail.read(account)).toMatchObject({ account, historyId: '18446744073709551615', watchExpiration: NOW + 1000, mode: 'pull', lastError: 'quota' });
      await store.gmail.saveError(account, undefined);
      expect((await store.gmail.read(account))?.lastError).toBeUndefined();
      expect(await store.gmail.isAdmitted(account, 'm1')).toBe(false);
      await store.gmail.markAdmitted(account, 'm1');
      await store.gmail.markAdmitted(account, 'm1');
      expect(await store.gmail.isAdmitted(account, 'm1')).toBe(true);
      expect(await store.gmail.isAdmitted('other@example.com', 'm1')).toBe(false);
      await store.gmail.saveHistoryId('a@example.com', '5');
      expect((await store.gmail.readAll()).map((row) => row.account)).toEqual(['a@example.com', account]);
    });
  });
}
