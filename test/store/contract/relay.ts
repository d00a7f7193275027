import { describe, expect, it } from 'vitest';
import type { AgentAction, WakeAction } from '../../../src/actions/types.js';
import type { Acceptance, RelayAck, RunFinish, RunRow, Store } from '../../../src/store/port.js';
import { agent } from '../acceptances.js';
import { contractStores } from './fixture.js';
import type { ContractFactory } from './index.js';

const LEASE_MS = 60_000;

/** An agent action forwarded to the relay target `laptop` (as the builder marks it), in session `session`. */
function relayed(message: string, session?: string): AgentAction {
  const action = agent(message);
  return { ...action, forward: 'laptop', relay: true, untrusted: true, ...(session === undefined ? {} : { sessionKey: session }) };
}

async function accept(store: Store, ...actions: Array<AgentAction | WakeAction>): Promise<void> {
  const acceptance: Acceptance = { actions, response: { status: 202, body: { ok: true, runIds: actions.map((action) => action.runId ?? '') } } };
  await store.ingress.accept(acceptance);
}

function lease(store: Store, consumer: string, at: number, max = 10) {
  return store.relay.lease({ target: 'laptop', consumer, max, at, leaseUntil: at + LEASE_MS });
}

/** The end a consumer's acknowledgement gives a run (the edge builds it; the store applies it). */
function acknowledged(_row: RunRow, ack: RelayAck): RunFinish {
  return ack.taken
    ? { status: 'ok', at: Date.now(), summary: 'Relay → laptop: acknowledged', handoff: { target: 'laptop', consumer: 'a' } }
    : { status: 'error', at: Date.now(), summary: 'refused', error: ack.reason };
}

/** Waits until the store's time has moved past `at` (a later acceptance then gets a later time). */
async function after(store: Store, at: number): Promise<void> {
  while (store.now() <= at) await new Promise((resolve) => setImmediate(resolve));
}

/** Relay targets (docs/relay.md): events held for consumers, leased, acknowledged, dropped. */
export function describeRelayContract(makeStore: ContractFactory): void {
  describe('relay events', () => {
    const stores = contractStores(makeStore);

    it('keeps an action forwarded to a relay target as a queued run of kind relay that the runtime never lists, counted as queued', async () => {
      const { store } = await stores.open();
      const event = relayed('review it');
      const wake: WakeAction = { kind: 'wake', runId: 'wake-1', text: 'ping', mode: 'now', origin: { hook: 'github' }, forward: 'laptop', relay: true };
      await accept(store, event, wake);
      expect(await store.runs.listQueued(10)).toEqual([]);
      expect(await store.runs.listQueued(10, store.now())).toEqual([]);
      expect((await store.depths()).runs.queued).toBe(2);
      expect(await store.runs.view(event.runId)).toMatchObject({ kind: 'relay', status: 'queued', waitingFor: 'consumer', attempts: 0 });
      expect((await store.limits.overview([], store.now())).waiting.consumer).toBe(2);
      expect(await store.limits.forceStart(event.runId, store.now())).toEqual({ kind: 'not-queued', status: "held for a relay target's consumers" });
    });

    it('hands the oldest events out under a lease, to one consumer at a time, again after the lease and at once to the same consumer', async () => {
      const { store } = await stores.open();
      const [first, second, third] = [relayed('one'), relayed('two'), relayed('three')];
      await accept(store, first, second, third);
      const at = store.now();
      const taken = await lease(store, 'a', at, 2);
      expect(taken.map((event) => [event.id, event.deliveries])).toEqual([
        [first.runId, 1],
        [second.runId, 1],
      ]);
      expect(JSON.parse(taken[0]?.action ?? '{}')).toMatchObject({ kind: 'agent', runId: first.runId, forward: 'laptop', relay: true });
      expect((await lease(store, 'b', at + 1)).map((event) => event.id)).toEqual([third.runId]);
      expect(await lease(store, 'c', at + 2)).toEqual([]);
      expect((await lease(store, 'a', at + 3)).map((event) => [event.id, event.deliveries])).toEqual([
        [first.runId, 2],
        [second.runId, 2],
      ]);
      const again = await lease(store, 'c', at + 3 + LEASE_MS);
      expect(again.map((event) => [event.id, event.deliveries])).toEqual([
        [first.runId, 3],
        [second.runId, 3],
        [third.runId, 2],
      ]);
      expect(await store.runs.view(first.runId)).toMatchObject({ status: 'queued', attempts: 3, handoff: { target: 'laptop', consumer: 'c', retryAt: new Date(at + 3 + 2 * LEASE_MS).toISOString() } });
    });

    it('keeps one session key in order: a later event waits while an earlier one is leased to another consumer', async () => {
      const { store } = await stores.open();
      const [a1, b1, a2] = [relayed('a1', 'hook:a'), relayed('b1', 'hook:b'), relayed('a2', 'hook:a')];
      await accept(store, a1, b1, a2);
      const at = store.now();
      expect((await lease(store, 'x', at, 1)).map((event) => event.id)).toEqual([a1.runId]);
      expect((await lease(store, 'y', at)).map((event) => event.id)).toEqual([b1.runId]);
      expect(await store.relay.acknowledge({ target: 'laptop', consumer: 'x', at, acks: [{ id: a1.runId, taken: true }] }, acknowledged)).toEqual(['acked']);
      expect((await lease(store, 'y', at)).map((event) => event.id)).toEqual([b1.runId, a2.runId]);
    });

    it('answers each acknowledgement: acked, already acked, leased to another, ended, unknown; the acked run ends as told', async () => {
      const { store } = await stores.open();
      const [first, second, third] = [relayed('one'), relayed('two'), relayed('three')];
      await accept(store, first, second, third);
      const at = store.now();
      await lease(store, 'a', at, 1);
      await lease(store, 'b', at, 1);
      const acks: RelayAck[] = [
        { id: first.runId, taken: true },
        { id: first.runId, taken: true },
        { id: second.runId, taken: true },
        { id: third.runId, taken: true },
        { id: 'no-such-event', taken: true },
      ];
      expect(await store.relay.acknowledge({ target: 'laptop', consumer: 'a', at, acks }, acknowledged)).toEqual(['acked', 'already-acked', 'not-leased', 'not-leased', 'unknown']);
      expect(await store.runs.view(first.runId)).toMatchObject({ status: 'ok', kind: 'relay', summary: 'Relay → laptop: acknowledged', handoff: { target: 'laptop', consumer: 'a' } });
      expect(await store.relay.acknowledge({ target: 'elsewhere', consumer: 'b', at, acks: [{ id: second.runId, taken: true }] }, acknowledged)).toEqual(['unknown']);
      expect(await store.relay.acknowledge({ target: 'laptop', consumer: 'b', at, acks: [{ id: second.runId, taken: false, reason: 'answered 400' }] }, acknowledged)).toEqual(['acked']);
      expect(await store.runs.view(second.runId)).toMatchObject({ status: 'error', error: 'answered 400' });
      expect((await store.depths()).runs.queued).toBe(1);
    });

    it('takes the acknowledgement of a consumer whose lease ran out while nobody leased the event since, not after', async () => {
      const { store } = await stores.open();
      const [first, second] = [relayed('one'), relayed('two')];
      await accept(store, first, second);
      const at = store.now();
      await lease(store, 'a', at);
      const late = at + 2 * LEASE_MS;
      expect(await store.relay.acknowledge({ target: 'laptop', consumer: 'a', at: late, acks: [{ id: first.runId, taken: true }] }, acknowledged)).toEqual(['acked']);
      await lease(store, 'b', late);
      expect(await store.relay.acknowledge({ target: 'laptop', consumer: 'a', at: late, acks: [{ id: second.runId, taken: true }] }, acknowledged)).toEqual(['not-leased']);
    });

    it('drops the events accepted before a time, leased or not, with the end given, and leaves the younger ones', async () => {
      const { store } = await stores.open();
      const [old, older] = [relayed('old'), relayed('older')];
      await accept(store, older, old);
      const cut = store.now();
      await after(store, cut);
      const young = relayed('young');
      await accept(store, young);
      await lease(store, 'a', store.now(), 1);
      const dropped = (row: RunRow): RunFinish => ({ status: 'error', at: store.now(), summary: `dropped ${row.name}`, error: 'dropped: not acknowledged within 1 h' });
      expect(await store.relay.dropOlderThan('laptop', cut + 1, 1, dropped)).toEqual([older.runId]);
      expect(await store.relay.dropOlderThan('laptop', cut + 1, 10, dropped)).toEqual([old.runId]);
      expect(await store.runs.view(older.runId)).toMatchObject({ status: 'error', error: 'dropped: not acknowledged within 1 h' });
      expect(await store.relay.acknowledge({ target: 'laptop', consumer: 'a', at: store.now(), acks: [{ id: older.runId, taken: true }] }, acknowledged)).toEqual(['ended']);
      expect((await lease(store, 'b', store.now())).map((event) => event.id)).toEqual([young.runId]);
      expect(await store.runs.retry(older.runId, 'retry-1', store.now())).toEqual({ kind: 'queued', runId: 'retry-1' });
      expect(await store.runs.view('retry-1')).toMatchObject({ kind: 'relay', status: 'queued', waitingFor: 'consumer' });
      expect((await lease(store, 'c', store.now())).map((event) => event.id)).toEqual(['retry-1']);
    });

    it('shows each target’s backlog, leased count, oldest event and consumers last seen', async () => {
      const { store } = await stores.open();
      const [first, second] = [relayed('one'), relayed('two')];
      await accept(store, first, second);
      const at = store.now();
      await store.relay.seen('laptop', 'a', at - 10);
      await store.relay.seen('laptop', 'b', at - 5);
      await store.relay.seen('laptop', 'a', at);
      await lease(store, 'a', at, 1);
      const [laptop, other] = await store.relay.overview(['laptop', 'other'], at);
      expect(laptop).toMatchObject({ target: 'laptop', backlog: 2, leased: 1, consumers: [{ consumer: 'a', lastSeen: at }, { consumer: 'b', lastSeen: at - 5 }] });
      expect(laptop?.oldestAt).toBeLessThanOrEqual(at);
      expect(other).toEqual({ target: 'other', backlog: 0, leased: 0, consumers: [] });
      expect((await store.relay.overview(['laptop'], at + LEASE_MS))[0]?.leased).toBe(0);
    });

    it('never hands one event to two consumers asking at once, on two instances where they may share the database', async () => {
      const made = await stores.open();
      const other = made.sibling !== undefined && made.concurrentInstances === true ? await made.sibling() : made.store;
      const events = Array.from({ length: 12 }, (_, index) => relayed(`event ${index}`, `hook:${index % 3}`));
      await accept(made.store, ...events);
      const at = made.store.now();
      const [a, b] = await Promise.all([lease(made.store, 'a', at, 12), lease(other, 'b', at, 12)]);
      const ids = [...a, ...b].map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      // Whoever took the first event of a session key holds that key's later ones back from the other.
      for (const taken of [a, b]) {
        const sessions = taken.map((event) => (JSON.parse(event.action) as AgentAction).sessionKey);
        for (const session of new Set(sessions)) {
          const expected = events.filter((event) => event.sessionKey === session).map((event) => event.runId);
          expect(taken.filter((_, index) => sessions[index] === session).map((event) => event.id)).toEqual(expected);
        }
      }
      expect(ids.sort()).toEqual(events.map((event) => event.runId).sort());
    });
  });
}
