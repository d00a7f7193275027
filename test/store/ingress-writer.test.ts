import { afterEach, describe, expect, it } from 'vitest';
import { isMainThread } from 'node:worker_threads';
import type { Action } from '../../src/actions/types.js';
import { HookError } from '../../src/errors.js';
import type { WriterAccess } from '../../src/store/sqlite/ingress.js';
import { agentAcceptance, rejectionOf, storeFixture, wakeAcceptance, type StoreFixture } from './helpers.js';

describe('the ingress store on its writer thread', () => {
  let fixture: StoreFixture | undefined;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });

  it('resolves an acceptance only once a fresh connection sees its rows', async () => {
    fixture = storeFixture();
    const run = agentAcceptance('durable run', 'key-1');
    const outcome = await fixture.store.accept(run);
    expect(outcome).toEqual({ kind: 'committed', response: run.response });
    await fixture.store.accept(wakeAcceptance('durable event'));
    expect(fixture.count("SELECT count(*) AS n FROM runs WHERE instr(action, 'durable run') > 0")).toBe(1);
    expect(fixture.count("SELECT count(*) AS n FROM events WHERE text = 'durable event'")).toBe(1);
    expect(fixture.count("SELECT count(*) AS n FROM idempotency WHERE key = 'key-1'")).toBe(1);
  });

  it('commits many concurrent acceptances in fewer transactions than acceptances', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, index) => store.accept(wakeAcceptance(`burst ${index}`))));
    expect(outcomes.every((outcome) => outcome.kind === 'committed')).toBe(true);
    expect(fixture.count('SELECT count(*) AS n FROM events')).toBe(200);
    expect(fixture.faults.commitCount()).toBeGreaterThanOrEqual(1);
    expect(fixture.faults.commitCount()).toBeLessThan(20);
  });

  it('keeps accepting while a commit is in flight and answers each batch after its own commit', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    const first = store.accept(wakeAcceptance('first'));
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is on its way to the writer
    const second = Promise.all([store.accept(wakeAcceptance('second a')), store.accept(wakeAcceptance('second b'))]);
    await first;
    await second;
    expect(fixture.count('SELECT count(*) AS n FROM events')).toBe(3);
    // Two batches: two transactions, or one when the writer found both waiting (group commit).
    expect(fixture.faults.commitCount()).toBeGreaterThanOrEqual(1);
    expect(fixture.faults.commitCount()).toBeLessThanOrEqual(2);
  });

  it('within one batch, commits a key once, replays it for the same request and refuses it for another', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    const original = wakeAcceptance('same', 'k');
    const [first, retry, other, unkeyed] = await Promise.allSettled([
      store.accept(original),
      store.accept(wakeAcceptance('same', 'k')),
      store.accept(wakeAcceptance('different', 'k')),
      store.accept(wakeAcceptance('no key')),
    ]);
    expect(fixture.faults.commitCount()).toBe(1);
    expect(first).toEqual({ status: 'fulfilled', value: { kind: 'committed', response: original.response } });
    expect(retry).toEqual({ status: 'fulfilled', value: { kind: 'replayed', response: original.response } });
    expect(other.status === 'rejected' && other.reason instanceof HookError && other.reason.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(unkeyed).toMatchObject({ status: 'fulfilled', value: { kind: 'committed' } });
    expect(fixture.count("SELECT count(*) AS n FROM events WHERE text = 'same'")).toBe(1);
    expect(fixture.count("SELECT count(*) AS n FROM events WHERE text = 'different'")).toBe(0);
    expect(fixture.count("SELECT count(*) AS n FROM events WHERE text = 'no key'")).toBe(1);
  });

  it('across batches, replays a committed key from the main connection and the writer alike, and refuses a different request', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    const original = agentAcceptance('once', 'r1');
    await store.accept(original);
    expect(await store.replay('r1', 'fp:once')).toEqual(original.response);
    await expect(store.replay('r1', 'fp:other')).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect(await store.accept(agentAcceptance('once', 'r1'))).toEqual({ kind: 'replayed', response: original.response });
    const refused = await rejectionOf(store.accept(agentAcceptance('twice', 'r1')));
    expect(refused).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', status: 409 });
    expect(fixture.count('SELECT count(*) AS n FROM runs')).toBe(1);
  });

  it('lets an expired key that was not purged yet be used again instead of failing the batch', async () => {
    let clock = 1_000_000;
    fixture = storeFixture({ idempotencyTtlMs: 1_000, now: () => clock, maintenanceIntervalMs: 3_600_000 });
    await fixture.store.accept(wakeAcceptance('old', 'reused'));
    clock += 5_000;
    expect(await fixture.store.replay('reused', 'fp:new')).toBeUndefined();
    expect(await fixture.store.accept(wakeAcceptance('new', 'reused'))).toMatchObject({ kind: 'committed' });
    expect(await fixture.store.replay('reused', 'fp:new')).toEqual({ status: 200, body: { ok: true, mode: 'next-heartbeat' } });
    expect(fixture.count('SELECT count(*) AS n FROM events')).toBe(2);
  });

  it('tells listeners on the main thread about exactly the actions each commit made durable', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    const seen: Array<{ actions: readonly Action[]; mainThread: boolean; stored: number }> = [];
    store.onCommitted((actions) => seen.push({ actions, mainThread: isMainThread, stored: fixture!.count('SELECT count(*) AS n FROM events') }));
    const keyed = wakeAcceptance('keyed', 'k');
    await Promise.allSettled([store.accept(keyed), store.accept(wakeAcceptance('keyed', 'k')), store.accept(wakeAcceptance('other', 'k'))]);
    expect(seen).toEqual([{ actions: keyed.actions, mainThread: true, stored: 1 }]);
  });

  it('answers an extension request with an error: fault injection is not part of the production writer', async () => {
    let writer: WriterAccess | undefined;
    fixture = storeFixture({ seams: { onWriter: (access) => (writer = access) } });
    expect(await writer!.request({ type: 'extension', name: 'crash-next-commit' })).toMatchObject({ type: 'error', message: expect.stringMatching(/no extension/) });
    expect(await fixture.store.accept(wakeAcceptance('still committing'))).toMatchObject({ kind: 'committed' });
  });
});
