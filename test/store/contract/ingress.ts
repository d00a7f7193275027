import { describe, expect, it } from 'vitest';
import type { AdmittedAction } from '../../../src/actions/types.js';
import { agentAcceptance, rejectionOf, wakeAcceptance } from '../helpers.js';
import { contractStores } from './fixture.js';
import type { ContractFactory } from './index.js';

/** accept, replay, onCommitted, isWritable, close (the factory's idempotency TTL must be a minute or more). */
export function describeIngressContract(makeStore: ContractFactory): void {
  describe('ingress', () => {
    const stores = contractStores(makeStore);

    it('resolves an acceptance only once its actions can be read back: wakes pending, agents queued', async () => {
      const { store } = await stores.open();
      const run = agentAcceptance('durable run');
      expect(await store.ingress.accept(run)).toEqual({ kind: 'committed', response: run.response });
      expect(await store.ingress.accept(wakeAcceptance('durable event'))).toMatchObject({ kind: 'committed' });
      const queued = await store.runs.listQueued(10);
      expect(queued.map((row) => row.run_id)).toEqual([run.actions[0]?.kind === 'agent' ? run.actions[0].runId : '']);
      expect(queued[0]).toMatchObject({ status: 'queued', attempts: 0, hook: 'agent', name: 'Test' });
      expect((await store.session.listPending(10)).map((event) => event.text)).toEqual(['durable event']);
      expect(await store.depths()).toEqual({ pendingEvents: 1, runs: { queued: 1, running: 0, debounced: 0 } });
    });

    it('replays a key for the same request (nothing stored twice) and refuses it for another', async () => {
      const { store } = await stores.open();
      const first = agentAcceptance('once', 'key-1');
      await store.ingress.accept(first);
      expect(await store.ingress.replay('key-1', 'fp:once')).toEqual(first.response);
      expect(await store.ingress.accept(agentAcceptance('once', 'key-1'))).toEqual({ kind: 'replayed', response: first.response });
      expect(await rejectionOf(store.ingress.accept(wakeAcceptance('other', 'key-1')))).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
      await expect(store.ingress.replay('key-1', 'fp:other')).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
      expect(await store.ingress.replay('never-used', 'fp')).toBeUndefined();
      expect(await store.runs.countByStatus()).toMatchObject({ queued: 1 });
      expect(await store.session.countPending()).toBe(0);
    });

    it('commits one key once when the same request arrives many times together', async () => {
      const { store } = await stores.open();
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.ingress.accept(wakeAcceptance('same', 'together'))));
      expect(outcomes.filter((outcome) => outcome.kind === 'committed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'replayed')).toHaveLength(9);
      expect(await store.session.countPending()).toBe(1);
    });

    it('tells listeners about exactly the actions each commit made durable, never a replay', async () => {
      const { store } = await stores.open();
      const seen: AdmittedAction[][] = [];
      const unsubscribe = store.ingress.onCommitted((actions) => seen.push([...actions]));
      const keyed = wakeAcceptance('keyed', 'k');
      await store.ingress.accept(keyed);
      await store.ingress.accept(wakeAcceptance('keyed', 'k'));
      expect(seen).toEqual([keyed.actions]);
      unsubscribe();
      await store.ingress.accept(wakeAcceptance('after unsubscribing'));
      expect(seen).toHaveLength(1);
    });

    it('is writable while open; on close commits what was accepted, then refuses new work with SHUTTING_DOWN', async () => {
      const { store } = await stores.open();
      expect(store.ingress.isWritable()).toBe(true);
      const accepted = Array.from({ length: 5 }, (_, index) => store.ingress.accept(wakeAcceptance(`queued ${index}`)));
      const closing = store.ingress.close();
      expect(await rejectionOf(store.ingress.accept(wakeAcceptance('late')))).toMatchObject({ code: 'SHUTTING_DOWN', status: 503 });
      await closing;
      expect((await Promise.all(accepted)).every((outcome) => outcome.kind === 'committed')).toBe(true);
      expect(store.ingress.isWritable()).toBe(false);
      expect(await store.session.countPending()).toBe(5);
    });

    it('refuses every call once the whole store is closed', async () => {
      const { store } = await stores.open();
      await store.close();
      expect(await rejectionOf(store.ingress.accept(wakeAcceptance('late')))).toMatchObject({ code: 'SHUTTING_DOWN' });
      await expect(store.runs.listQueued(1)).rejects.toThrow();
      await expect(store.state.set('k', 'v')).rejects.toThrow();
    });
  });
}
