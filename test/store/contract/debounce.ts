import { describe, expect, it } from 'vitest';
import type { AgentAction } from '../../../src/actions/types.js';
import { debounceActionKey, type DebounceJoin, type DueGroup } from '../../../src/store/debounce-port.js';
import type { AcceptOutcome, Store } from '../../../src/store/port.js';
import { agent, rejectionOf, responseOf, wake } from '../helpers.js';
import { contractStores, NOW } from './fixture.js';
import { joinsFor } from '../../../src/http/admission-commit.js';
import type { ContractFactory } from './index.js';

function joinOf(message: string, key = 'repo#1', overrides: Partial<DebounceJoin> = {}): DebounceJoin {
  return { mappingId: 'gh-pr', key, action: agent(message), windowMs: 30_000, maxWaitMs: 300_000, keep: 'last', maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24, ...overrides };
}

/** Fires a claimed group as the firer does: its action committed under the group's key, then the group ended. */
async function fire(store: Store, group: DueGroup, owner: string): Promise<AcceptOutcome['kind']> {
  const action: AgentAction = { ...((await store.debounce.newestMember(group.groupId)) as AgentAction), runId: group.groupId };
  const outcome = await store.ingress.accept({
    actions: [action],
    response: { status: 202, body: { ok: true, runId: group.groupId } },
    idempotency: { key: debounceActionKey(group.groupId), fingerprint: group.groupId },
  });
  await store.debounce.fired(group.groupId, owner);
  return outcome.kind;
}

/** A group's stored messages, oldest first, read page by page as a firing reads them. */
async function messagesOf(store: Store, group: DueGroup, pageSize = 2): Promise<string[]> {
  const messages: string[] = [];
  for (let afterSeq = 0; ; ) {
    const page = await store.debounce.members(group.groupId, afterSeq, pageSize);
    messages.push(...page.map((member) => (member.action as AgentAction).message));
    if (page.length < pageSize) return messages;
    afterSeq = page.at(-1)?.seq as number;
  }
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

    it('counts each pending group of an agent or notify as a run to come in depths (a wake group is an event), until it fired', async () => {
      const { store } = await stores.open();
      await store.debounce.join({ joins: [joinOf('one', 'repo#1'), joinOf('two', 'repo#2')] }, NOW);
      await store.debounce.join({ joins: [joinOf('three', 'repo#1')] }, NOW + 1000);
      await store.debounce.join({ joins: [{ ...joinOf('w', 'wake'), action: wake('sentry issue') }] }, NOW);
      expect(await store.depths()).toEqual({ pendingEvents: 0, runs: { queued: 0, running: 0, debounced: 2 } });
      const due = await store.debounce.claimDue(NOW + 60_000, 'firer', NOW + 120_000, 10);
      // A claimed group is still a run to come until its action is committed and the group ended.
      expect((await store.depths()).runs.debounced).toBe(2);
      const agentGroup = due.find((group) => group.kind === 'agent') as DueGroup;
      await fire(store, agentGroup, 'firer');
      expect((await store.depths()).runs).toEqual({ queued: 1, running: 0, debounced: 1 });
    });

    it('says which joins would go into an open group of their key, and which would open one', async () => {
      const { store } = await stores.open();
      await store.debounce.join({ joins: [joinOf('one', 'repo#1')] }, NOW);
      const asked = [joinOf('x', 'repo#1'), joinOf('y', 'repo#2'), joinOf('z', 'repo#1', { mappingId: 'other' })];
      expect(await store.debounce.joinsOpenGroup(asked, NOW + 29_999)).toEqual([true, false, false]);
      // Past its fire time the group takes no more joins, whether or not it fired yet.
      expect(await store.debounce.joinsOpenGroup(asked, NOW + 30_000)).toEqual([false, false, false]);
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
      expect(due[0]).toMatchObject({ deliveries: 1, stored: 1 });
      expect(await store.debounce.newestMember(due[0]?.groupId ?? '')).toMatchObject({ message: 'one' });
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
      expect(byKeep['last']).toMatchObject({ deliveries: 3, stored: 1 });
      expect(byKeep['all']).toMatchObject({ deliveries: 3, stored: 3 });
      expect(await messagesOf(store, byKeep['last'] as DueGroup)).toEqual(['c']);
      expect(await messagesOf(store, byKeep['all'] as DueGroup)).toEqual(['a', 'b', 'c']);
    });

    it('closes a full keep "all" group (maxDeliveries) instead of joining it: it is due at once and the delivery opens a new group, nothing dropped', async () => {
      const { store } = await stores.open();
      const bounded = { keep: 'all' as const, maxDeliveries: 3 };
      const joined = [];
      for (const message of ['a', 'b', 'c', 'd', 'e']) joined.push(await store.debounce.join({ joins: [joinOf(message, 'k', bounded)] }, NOW + joined.length * 1000));
      const groups = joined.map((outcome) => (outcome.kind === 'committed' ? outcome.groups[0] : undefined));
      const [first, , , fourth, fifth] = groups;
      expect(groups.map((group) => group?.opened)).toEqual([true, false, false, true, false]);
      expect(fourth).toMatchObject({ closed: first?.groupId, deliveries: 1, firesAt: NOW + 3000 + 30_000 });
      expect(fifth?.groupId).toBe(fourth?.groupId);
      expect(await store.debounce.view(first?.groupId ?? '')).toMatchObject({ status: 'open', deliveries: 3, firesAt: NOW + 3000 });
      expect(await store.debounce.nextFireAt()).toBe(NOW + 3000);
      const [due] = await store.debounce.claimDue(NOW + 3000, 'firer', NOW + 60_000, 10);
      expect(due).toMatchObject({ groupId: first?.groupId, deliveries: 3, stored: 3 });
      expect(await messagesOf(store, due as DueGroup)).toEqual(['a', 'b', 'c']);
      const [later] = await store.debounce.claimDue(NOW + 4000 + 30_000, 'firer', NOW + 99_000, 10);
      expect(await messagesOf(store, later as DueGroup)).toEqual(['d', 'e']);
    });

    it('closes a keep "all" group that a delivery would take past maxBytes of stored actions, and says so to the queue guard first', async () => {
      const { store } = await stores.open();
      const size = JSON.stringify(agent('x'.repeat(1000))).length;
      const bounded = { keep: 'all' as const, maxBytes: 2 * size + 500 };
      const first = await store.debounce.join({ joins: [joinOf('x'.repeat(1000), 'k', bounded)] }, NOW);
      await store.debounce.join({ joins: [joinOf('y'.repeat(1000), 'k', bounded)] }, NOW);
      expect(await store.debounce.joinsOpenGroup([joinOf('z', 'k', bounded), joinOf('z'.repeat(1000), 'k', bounded)], NOW)).toEqual([true, false]);
      const third = await store.debounce.join({ joins: [joinOf('z'.repeat(1000), 'k', bounded)] }, NOW + 1000);
      expect(third.kind === 'committed' && third.groups[0]).toMatchObject({ opened: true, closed: first.kind === 'committed' ? first.groups[0]?.groupId : 'none' });
      // keep "last" stores one action whatever the bounds: it never closes a group for them.
      const last = { keep: 'last' as const, maxDeliveries: 1, maxBytes: 1024 };
      await store.debounce.join({ joins: [joinOf('x'.repeat(2000), 'other', last)] }, NOW);
      const again = await store.debounce.join({ joins: [joinOf('x'.repeat(2000), 'other', last)] }, NOW);
      expect(again.kind === 'committed' && again.groups[0]).toMatchObject({ opened: false, deliveries: 2 });
    });

    it('reads a group\'s members a page at a time, oldest first, or its newest alone; a claim brings none', async () => {
      const { store } = await stores.open();
      for (let index = 0; index < 7; index += 1) await store.debounce.join({ joins: [joinOf(`m${index}`, 'k', { keep: 'all' })] }, NOW);
      const [due] = await store.debounce.claimDue(NOW + 30_000, 'firer', NOW + 90_000, 10);
      expect(due).toEqual(expect.objectContaining({ deliveries: 7, stored: 7 }));
      expect(Object.keys(due ?? {}).sort()).toEqual(['createdAt', 'deliveries', 'groupId', 'keep', 'kind', 'mappingId', 'maxChars', 'stored']);
      expect(await store.debounce.newestMember(due?.groupId ?? '')).toMatchObject({ message: 'm6' });
      expect(await store.debounce.newestMember('no-such-group')).toBeUndefined();
      const firstPage = await store.debounce.members(due?.groupId ?? '', 0, 3);
      expect(firstPage.map((member) => (member.action as AgentAction).message)).toEqual(['m0', 'm1', 'm2']);
      const nextPage = await store.debounce.members(due?.groupId ?? '', firstPage.at(-1)?.seq ?? 0, 3);
      expect(nextPage.map((member) => (member.action as AgentAction).message)).toEqual(['m3', 'm4', 'm5']);
      expect(await messagesOf(store, due as DueGroup, 4)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
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
      const joins = joinsFor('gh-pr', [agent('keyed'), agent('unkeyed')], { windowMs: 30_000, maxWaitMs: 300_000, keep: 'last', maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24, keys: ['repo#1', ''] }) ?? [];
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
        actions: [{ ...((await store.debounce.newestMember(groupId)) as AgentAction), runId: groupId }],
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
