import { describe, expect, it } from 'vitest';
import type { AgentAction } from '../../../src/actions/types.js';
import { debounceActionKey, type DebounceJoin, type DueGroup } from '../../../src/store/debounce-port.js';
import type { AcceptOutcome, Store } from '../../../src/store/port.js';
import { agent, rejectionOf, responseOf, wake } from '../helpers.js';
import { contractStores, NOW } from './fixture.js';
import { joinsFor } from '../../../src/http/admission-commit.js';
import type { ContractFactory } from './index.js';

function joinOf(message: string, key = 'repo#1', overrides: Partial<DebounceJoin> = {}): DebounceJoin {
  return { mappingId: 'gh-pr', key, action: agent(message), windowMs: 30_000, maxWaitMs: 300_000, keep: 'last', maxChars: 20_000, ...overrides };
}

/** Fires a claimed group as the firer does: its action committed under the group's key, then the group ended. */
async function fire(store: Store, group: DueGroup, owner: string): Promise<AcceptOutcome['kind']> {
  const action: AgentAction = { ...(group.members.at(-1) as AgentAction), runId: group.groupId };
  const outcome = await store.ingress.accept({
    actions: [action],
    response: { status: 202, body: { ok: true, runId: group.groupId } },
    idempotency: { key: debounceActionKey(group.groupId), fingerprint: group.groupId },
  });
  await store.debounce.fired(group.groupId, owner);
  return outcome.kind;
}

export function describeDebounceContract(makeStore: ContractFactory): void {
  const stores = contractStores(makeStore);

  describe('debounce', () => {
    it('opens a group with the first delivery and joins later ones of the same key, re-arming the window', async () => {
      const { store } = await stores.open();
      const first = await store.debounce.join({ joins: [joinOf('one')] }, NOW);
      const second = await store.debounce.join({ joins: [joinOf('two')] }, NOW + 10_000);
      const other = await store.debounce.join({ joins: [joinOf('x', 'repo#2')] }, NOW + 10_000);
      if (first.kind !== 'committed' || second.kind !== 'committed' || other.kind !== 'committed') throw new Error('expected commits');
      expect(first.groups[0]).toMatchObject({ opened: true, deliveries: 1, firesAt: NOW + 30_000 });
      expect(second.groups[0]).toMatchObject({ groupId: first.groups[0]?.groupId, opened: false, deliveries: 2, firesAt: NOW + 40_000 });
      expect(other.groups[0]?.groupId).not.toBe(first.groups[0]?.groupId);
      expect(second.response).toEqual({ status: 202, body: { ok: true, runId: first.groups[0]?.groupId, debounced: true } });
      expect(await store.debounce.view(first.groups[0]?.groupId ?? '')).toMatchObject({ status: 'open', deliveries: 2, firesAt: NOW + 40_000, mappingId: 'gh-pr' });
      expect(await store.debounce.countOpen()).toBe(2);
      expect(await store.debounce.nextFireAt()).toBe(NOW + 40_000);
    });

    it("says when a firer must next look: an open group's fire time, or the end of a claim's lease", async () => {
      const { store } = await stores.open();
      expect(await store.debounce.nextFireAt()).toBeUndefined();
      await store.debounce.join({ joins: [joinOf('claimed', 'a')] }, NOW);
      await store.debounce.join({ joins: [joinOf('open', 'b')] }, NOW + 20_000);
      expect(await store.debounce.nextFireAt()).toBe(NOW + 30_000);
      // Claimed by a firer that then neither commits nor ends it: it must be looked at again when the lease ends.
      expect(await store.debounce.claimDue(NOW + 30_000, 'dead', NOW + 45_000, 10)).toHaveLength(1);
      expect(await store.debounce.nextFireAt()).toBe(NOW + 45_000);
      expect(await store.debounce.claimDue(NOW + 45_000, 'next', NOW + 105_000, 10)).toHaveLength(1);
      expect(await store.debounce.nextFireAt()).toBe(NOW + 50_000);
    });

    it('never re-arms a group past its maximum wait', async () => {
      const { store } = await stores.open();
      const settings = { windowMs: 30_000, maxWaitMs: 45_000 };
      await store.debounce.join({ joins: [joinOf('one', 'k', settings)] }, NOW);
      const late = await store.debounce.join({ joins: [joinOf('two', 'k', settings)] }, NOW + 25_000);
      expect(late.kind === 'committed' && late.groups[0]).toMatchObject({ deliveries: 2, firesAt: NOW + 45_000 });
    });

    it('starts a new group for a join after the window closed, and fires each group once', async () => {
      const { store } = await stores.open();
      const first = await store.debounce.join({ joins: [joinOf('one')] }, NOW);
      const after = await store.debounce.join({ joins: [joinOf('two')] }, NOW + 30_000);
      if (first.kind !== 'committed' || after.kind !== 'committed') throw new Error('expected commits');
      expect(after.groups[0]).toMatchObject({ opened: true, deliveries: 1 });
      expect(await store.debounce.claimDue(NOW + 29_999, 'a', NOW + 90_000, 10)).toEqual([]);
      const due = await store.debounce.claimDue(NOW + 30_000, 'a', NOW + 90_000, 10);
      expect(due.map((group) => group.groupId)).toEqual([first.groups[0]?.groupId]);
      expect(due[0]?.members.map((member) => (member as AgentAction).message)).toEqual(['one']);
      expect(await store.debounce.claimDue(NOW + 30_000, 'b', NOW + 90_000, 10)).toEqual([]);
    });

    it('keeps only the newest delivery for keep "last" and every one, oldest first, for keep "all"', async () => {
      const { store } = await stores.open();
      for (const message of ['a', 'b', 'c']) {
        await store.debounce.join({ joins: [joinOf(message, 'last')] }, NOW);
        await store.debounce.join({ joins: [joinOf(message, 'all', { keep: 'all' })] }, NOW);
      }
      const due = await store.debounce.claimDue(NOW + 60_000, 'a', NOW + 120_000, 10);
      const byKeep = Object.fromEntries(due.map((group) => [group.keep, group]));
      expect(byKeep['last']?.members.map((member) => (member as AgentAction).message)).toEqual(['c']);
      expect(byKeep['last']?.deliveries).toBe(3);
      expect(byKeep['all']?.members.map((member) => (member as AgentAction).message)).toEqual(['a', 'b', 'c']);
    });

    it('stores the idempotency key with the join: a replayed delivery does not join twice', async () => {
      const { store } = await stores.open();
      const idempotency = { key: 'delivery-1', fingerprint: 'fp-1' };
      // The store's own clock judges a key's age in replay(): joined at the real now.
      const at = Date.now();
      const first = await store.debounce.join({ joins: [joinOf('one')], idempotency }, at);
      const again = await store.debounce.join({ joins: [joinOf('one')], idempotency }, at + 1000);
      expect(again).toEqual({ kind: 'replayed', response: responseOf(first) });
      expect(await store.ingress.replay('delivery-1', 'fp-1')).toEqual(responseOf(first));
      const groupId = first.kind === 'committed' ? first.groups[0]?.groupId : undefined;
      expect((await store.debounce.view(groupId ?? ''))?.deliveries).toBe(1);
      const conflict = await rejectionOf(store.debounce.join({ joins: [joinOf('other')], idempotency: { key: 'delivery-1', fingerprint: 'fp-2' } }, at + 2000));
      expect(conflict).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    });

    it('joins a request whose keys rendered partly empty: the empty one gets a group of its own, due at once', async () => {
      const { store } = await stores.open();
      const joins = joinsFor('gh-pr', [agent('keyed'), agent('unkeyed')], { windowMs: 30_000, maxWaitMs: 300_000, keep: 'last', maxChars: 20_000, keys: ['repo#1', ''] }) ?? [];
      const outcome = await store.debounce.join({ joins }, NOW);
      expect(outcome.kind).toBe('committed');
      const groups = outcome.kind === 'committed' ? outcome.groups : [];
      expect(groups.map((group) => group.firesAt)).toEqual([NOW + 30_000, NOW]);
      expect((await store.debounce.claimDue(NOW, 'firer', NOW + 60_000, 10)).map((group) => group.groupId)).toEqual([groups[1]?.groupId]);
    });

    it('answers a wake group with its mode', async () => {
      const { store } = await stores.open();
      const outcome = await store.debounce.join({ joins: [{ ...joinOf('w'), action: wake('sentry issue') }] }, NOW);
      expect(responseOf(outcome)).toEqual({ status: 200, body: { ok: true, mode: 'next-heartbeat', debounced: true } });
    });

    it('makes exactly one run of a group even when its firer died after committing and another takes over', async () => {
      const { store } = await stores.open();
      const joined = await store.debounce.join({ joins: [joinOf('one')] }, NOW);
      const groupId = joined.kind === 'committed' ? (joined.groups[0]?.groupId as string) : '';
      const [claimed] = await store.debounce.claimDue(NOW + 30_000, 'dead', NOW + 40_000, 10);
      if (claimed === undefined) throw new Error('expected a claim');
      // The dead firer committed the action but never ended the group.
      await store.ingress.accept({
        actions: [{ ...(claimed.members[0] as AgentAction), runId: groupId }],
        response: { status: 202, body: { ok: true, runId: groupId } },
        idempotency: { key: debounceActionKey(groupId), fingerprint: groupId },
      });
      expect(await store.debounce.claimDue(NOW + 39_999, 'next', NOW + 99_000, 10)).toEqual([]);
      const [taken] = await store.debounce.claimDue(NOW + 40_000, 'next', NOW + 99_000, 10);
      if (taken === undefined) throw new Error('expected the lapsed claim to be taken over');
      expect(await fire(store, taken, 'next')).toBe('replayed');
      expect(await store.debounce.view(groupId)).toBeUndefined();
      expect((await store.runs.listViews({ limit: 10 })).runs.map((run) => run.runId)).toEqual([groupId]);
    });

    it('keeps a group across a restart mid-window and fires it once afterwards', async (context) => {
      const made = await stores.open();
      if (made.sibling === undefined) return context.skip();
      const joined = await made.store.debounce.join({ joins: [joinOf('before restart')] }, NOW);
      const groupId = joined.kind === 'committed' ? joined.groups[0]?.groupId : undefined;
      const next = await made.sibling();
      expect(await next.debounce.view(groupId ?? '')).toMatchObject({ status: 'open', deliveries: 1 });
      const again = await next.debounce.join({ joins: [joinOf('after restart')] }, NOW + 5000);
      expect(again.kind === 'committed' && again.groups[0]).toMatchObject({ groupId, deliveries: 2 });
      const [due] = await next.debounce.claimDue(NOW + 35_000, 'next', NOW + 95_000, 10);
      if (due === undefined) throw new Error('expected the group to be due');
      expect(await fire(next, due, 'next')).toBe('committed');
      expect(await next.debounce.countOpen()).toBe(0);
    });

    it('gives each due group to exactly one of two stores polling at once', async (context) => {
      const made = await stores.open();
      if (made.sibling === undefined || made.concurrentInstances !== true) return context.skip();
      const other = await made.sibling();
      const groupIds: string[] = [];
      for (let index = 0; index < 30; index += 1) {
        const joined = await made.store.debounce.join({ joins: [joinOf(`m${index}`, `key-${index}`)] }, NOW);
        if (joined.kind === 'committed') groupIds.push(joined.groups[0]?.groupId as string);
      }
      const poll = async (store: Store, owner: string): Promise<string[]> => {
        const fired: string[] = [];
        for (let round = 0; round < 10; round += 1) {
          const due = await store.debounce.claimDue(NOW + 60_000, owner, NOW + 120_000, 4);
          for (const group of due) {
            await fire(store, group, owner);
            fired.push(group.groupId);
          }
        }
        return fired;
      };
      const [a, b] = await Promise.all([poll(made.store, 'a'), poll(other, 'b')]);
      expect([...a, ...b].sort()).toEqual([...groupIds].sort());
      expect((await made.store.runs.listViews({ limit: 100 })).runs).toHaveLength(30);
    });
  });
}
