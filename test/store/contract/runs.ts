import { describe, expect, it } from 'vitest';
import type { RunFinish } from '../../../src/store/port.js';
import { notifyAcceptance } from '../acceptances.js';
import { NOW, contractStores, queueRun } from './fixture.js';
import type { ContractFactory } from './index.js';

const LEASE = { owner: 'instance-a', at: NOW, leaseUntil: NOW + 60_000 };

function okEnd(sessionKey: string, summary = 'Hook Test: done'): RunFinish {
  return {
    status: 'ok',
    at: NOW + 10,
    summary,
    reply: 'done',
    exchange: { sessionKey, user: 'run it', assistant: 'done' },
    event: { at: NOW + 10, text: summary, mode: 'next-heartbeat', hook: 'agent' },
  };
}

/** The run queue: claims and leases, ends, recovery, retries, counts and views. */
export function describeRunsContract(makeStore: ContractFactory): void {
  describe('runs', () => {
    const stores = contractStores(makeStore);

    it('keeps a notify as a run of kind notify: queued with its action, no session, no event, and shown with kind', async () => {
      const { store } = await stores.open();
      const acceptance = notifyAcceptance('Payment failed for cus_1');
      await store.ingress.accept(acceptance);
      const action = acceptance.actions[0] as { runId: string };
      const [row] = await store.runs.listQueued(10);
      expect(row).toMatchObject({ run_id: action.runId, kind: 'notify', session_key: '', hook: 'stripe', name: 'stripe' });
      expect(JSON.parse(row?.action ?? '{}')).toEqual(acceptance.actions[0]);
      expect(await store.session.countPending()).toBe(0);
      expect(await store.runs.view(action.runId)).toMatchObject({ runId: action.runId, kind: 'notify', status: 'queued', sessionKey: '' });
      const agent = await queueRun(store);
      expect((await store.runs.view(agent.runId))?.kind).toBeUndefined();
      expect((await store.runs.listQueued(10)).map((queued) => queued.kind)).toEqual(['notify', 'agent']);
    });

    it('retries a failed notify as a notify', async () => {
      const { store } = await stores.open();
      const acceptance = notifyAcceptance('Payment failed');
      await store.ingress.accept(acceptance);
      const runId = (acceptance.actions[0] as { runId: string }).runId;
      await store.runs.claim(runId, LEASE);
      await store.runs.finish(runId, { status: 'error', at: NOW + 5, summary: 'Notify stripe (error): telegram down', error: 'telegram down' });
      const outcome = await store.runs.retry(runId, 'retry-of-notify', NOW + 10);
      expect(outcome).toEqual({ kind: 'queued', runId: 'retry-of-notify' });
      expect(await store.runs.view('retry-of-notify')).toMatchObject({ kind: 'notify', status: 'queued', retryOf: runId });
    });

    it('tells a waiting caller where a run stands, and its reply once it ended', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      expect(await store.runs.completion(action.runId)).toEqual({ status: 'queued' });
      await store.runs.claim(action.runId, LEASE);
      expect(await store.runs.completion(action.runId)).toEqual({ status: 'running' });
      await store.runs.finish(action.runId, { status: 'ok', at: NOW + 5, reply: 'the reply', summary: 'Hook h: the reply' });
      expect(await store.runs.completion(action.runId)).toEqual({ status: 'ok', reply: 'the reply' });
      expect(await store.runs.completion('no-such-run')).toBeUndefined();
    });

    it('lets exactly one of many concurrent claimers take a queued run, and counts the attempt', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      const claims = await Promise.all(Array.from({ length: 8 }, (_, index) => store.runs.claim(action.runId, { ...LEASE, owner: `owner-${index}` })));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.runs.view(action.runId)).toMatchObject({ status: 'running', attempts: 1, startedAt: new Date(NOW).toISOString() });
      expect(await store.runs.listQueued(10)).toEqual([]);
      expect(await store.runs.claim(action.runId, LEASE)).toBe(false);
      expect(await store.runs.claim('no-such-run', LEASE)).toBe(false);
    });

    it('writes no claim when its signal was aborted first', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      const stopped = new AbortController();
      stopped.abort();
      expect(await store.runs.claim(action.runId, { ...LEASE, signal: stopped.signal })).toBe(false);
      expect((await store.runs.view(action.runId))?.status).toBe('queued');
    });

    it('lists queued runs oldest first, at most the limit', async () => {
      const { store } = await stores.open();
      const first = await queueRun(store, 'first');
      const second = await queueRun(store, 'second');
      await queueRun(store, 'third');
      expect((await store.runs.listQueued(2)).map((row) => row.run_id)).toEqual([first.runId, second.runId]);
    });

    it('keeps a held claim: renewable by its owner, not taken over by its own recovery', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      expect(await store.runs.claim(action.runId, LEASE)).toBe(true);
      expect(await store.runs.renewLease(action.runId, LEASE.owner, NOW + 120_000)).toBe(true);
      expect(await store.runs.recoverAbandoned(NOW + 1, () => ({ kind: 'requeue', reason: 'never' }))).toEqual({ requeued: 0, finished: 0 });
      expect((await store.runs.view(action.runId))?.status).toBe('running');
    });

    it('lets another instance take over a run whose lease expired, exactly once', async (context) => {
      const opened = await stores.open();
      if (opened.sibling === undefined) return context.skip();
      const { store } = opened;
      const action = await queueRun(store);
      expect(await store.runs.claim(action.runId, { owner: 'dead', at: NOW, leaseUntil: NOW + 1 })).toBe(true);
      const [other, third] = [await opened.sibling(), await opened.sibling()];
      const decide = () => ({ kind: 'requeue' as const, reason: 'lease expired; re-queued' });
      const results = await Promise.all([other.runs.recoverAbandoned(NOW + 10, decide), third.runs.recoverAbandoned(NOW + 10, decide)]);
      expect(results.reduce((sum, result) => sum + result.requeued, 0)).toBe(1);
      expect(await other.runs.view(action.runId)).toMatchObject({ status: 'queued', attempts: 1, error: 'lease expired; re-queued' });
      expect((await other.runs.view(action.runId))?.startedAt).toBeUndefined();
    });

    it('finishes a run with its exchange, its summary event and a skipped delivery, in one step', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      await store.runs.claim(action.runId, LEASE);
      await store.runs.finish(action.runId, { ...okEnd(action.sessionKey), skipped: { channel: 'last', reason: 'deliver is false' } });
      expect(await store.runs.view(action.runId)).toMatchObject({
        status: 'ok',
        summary: 'Hook Test: done',
        finishedAt: new Date(NOW + 10).toISOString(),
        delivery: { status: 'skipped', reason: 'deliver is false' },
      });
      expect(await store.transcripts.read(action.sessionKey, 10_000)).toEqual([
        { role: 'user', content: 'run it' },
        { role: 'assistant', content: 'done' },
      ]);
      expect((await store.session.listPending(10)).map((event) => event.text)).toEqual(['Hook Test: done']);
      expect(await store.runs.renewLease(action.runId, LEASE.owner, NOW + 1)).toBe(false);
    });

    it('keeps the notes a run ended with, in its view and the run list; a run without notes and a retry show none', async () => {
      const { store } = await stores.open();
      const [noted, plain] = [await queueRun(store, 'noted'), await queueRun(store, 'plain')];
      const notes = ['thinking "high" not sent: model "m" takes none', 'a second note, "quoted" and ünïcode'];
      for (const run of [noted, plain]) await store.runs.claim(run.runId, LEASE);
      await store.runs.finish(noted.runId, { status: 'error', at: NOW + 5, summary: 'failed', error: 'provider down', notes });
      await store.runs.finish(plain.runId, { ...okEnd(plain.sessionKey), notes: [] });
      expect((await store.runs.view(noted.runId))?.notes).toEqual(notes);
      expect(await store.runs.view(plain.runId)).not.toHaveProperty('notes');
      const listed = (await store.runs.listViews({ limit: 10 })).runs;
      expect(listed.find((run) => run.runId === noted.runId)?.notes).toEqual(notes);
      expect(listed.find((run) => run.runId === plain.runId)).not.toHaveProperty('notes');
      expect(await store.runs.retry(noted.runId, 'retry-of-noted', NOW + 6)).toEqual({ kind: 'queued', runId: 'retry-of-noted' });
      expect(await store.runs.view('retry-of-noted')).not.toHaveProperty('notes');
    });

    it('suspends a run for the next start: interrupted without an end, then re-queued or finished by recovery', async () => {
      const { store } = await stores.open();
      const [again, last] = [await queueRun(store, 'again'), await queueRun(store, 'last')];
      for (const run of [again, last]) await store.runs.claim(run.runId, LEASE);
      await store.runs.suspend(again.runId, 'interrupted by shutdown');
      await store.runs.suspend(last.runId, 'interrupted by shutdown');
      expect(await store.runs.view(again.runId)).toMatchObject({ status: 'interrupted', error: 'interrupted by shutdown' });
      expect((await store.runs.view(again.runId))?.finishedAt).toBeUndefined();
      const end: RunFinish = { status: 'interrupted', at: NOW + 5, summary: 'gave up', error: 'twice', event: { at: NOW + 5, text: 'gave up', mode: 'now', hook: 'agent' } };
      const outcome = await store.runs.recoverAbandoned(NOW + 5, (row) => (row.run_id === again.runId ? { kind: 'requeue', reason: 'resumed' } : { kind: 'finish', end }));
      expect(outcome).toEqual({ requeued: 1, finished: 1 });
      expect(await store.runs.view(again.runId)).toMatchObject({ status: 'queued', attempts: 1, error: 'resumed' });
      expect(await store.runs.view(last.runId)).toMatchObject({ status: 'interrupted', summary: 'gave up', finishedAt: new Date(NOW + 5).toISOString() });
      expect((await store.session.listPending(10)).map((event) => event.text)).toEqual(['gave up']);
      expect(await store.runs.recoverAbandoned(NOW + 6, () => ({ kind: 'requeue', reason: 'again' }))).toEqual({ requeued: 0, finished: 0 });
    });

    it('records the delivery outcome of a run', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      await store.runs.setDelivery(action.runId, { status: 'failed', channel: 'telegram', to: '42', reason: 'HTTP 500', attempts: 3 });
      expect((await store.runs.view(action.runId))?.delivery).toEqual({ status: 'failed', channel: 'telegram', to: '42', reason: 'HTTP 500', attempts: 3 });
    });

    it('records a delivery made before the end with the end itself (a notify)', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      const delivery = { status: 'delivered' as const, channel: 'telegram', to: '42', parts: 1, attempts: 1 };
      await store.runs.finish(action.runId, { status: 'ok', at: NOW + 5, summary: 'Notify: delivered', delivery });
      expect(await store.runs.view(action.runId)).toMatchObject({ status: 'ok', delivery });
    });

    it('retries only a run that ended without doing its job, once: a second retry finds the first', async () => {
      const { store } = await stores.open();
      const action = await queueRun(store);
      expect(await store.runs.retry('no-such-run', 'new-0', NOW)).toEqual({ kind: 'not-found' });
      expect(await store.runs.retry(action.runId, 'new-1', NOW)).toEqual({ kind: 'not-retryable', status: 'queued' });
      await store.runs.claim(action.runId, LEASE);
      await store.runs.finish(action.runId, { status: 'error', at: NOW + 1, summary: 'failed', error: 'provider down' });
      expect(await store.runs.retry(action.runId, 'retry-1', NOW + 2)).toEqual({ kind: 'queued', runId: 'retry-1' });
      expect(await store.runs.retry(action.runId, 'retry-2', NOW + 3)).toEqual({ kind: 'existing', runId: 'retry-1' });
      expect(await store.runs.view('retry-1')).toMatchObject({ status: 'queued', attempts: 0, retryOf: action.runId, sessionKey: action.sessionKey });
      expect((await store.runs.view(action.runId))?.retriedBy).toBe('retry-1');
      const [queued] = await store.runs.listQueued(1);
      expect(JSON.parse(queued?.action ?? '{}')).toMatchObject({ runId: 'retry-1', message: action.message });
      const ok = await queueRun(store, 'fine');
      await store.runs.claim(ok.runId, LEASE);
      await store.runs.finish(ok.runId, okEnd(ok.sessionKey));
      expect(await store.runs.retry(ok.runId, 'retry-3', NOW)).toEqual({ kind: 'not-retryable', status: 'ok' });
    });

    it('counts runs by status and pages their views newest first with a cursor', async () => {
      const { store } = await stores.open();
      const runs = [];
      for (let index = 0; index < 5; index += 1) runs.push(await queueRun(store, `run ${index}`));
      await store.runs.claim(runs[0]!.runId, LEASE);
      expect(await store.runs.countByStatus()).toEqual({ queued: 4, running: 1, ok: 0, error: 0, timeout: 0, interrupted: 0 });
      expect(await store.depths()).toEqual({ pendingEvents: 0, runs: { queued: 4, running: 1, debounced: 0 } });
      const first = await store.runs.listViews({ limit: 2 });
      expect(first.runs.map((view) => view.runId)).toEqual([runs[4]!.runId, runs[3]!.runId]);
      const second = await store.runs.listViews({ limit: 2, before: first.next! });
      expect(second.runs.map((view) => view.runId)).toEqual([runs[2]!.runId, runs[1]!.runId]);
      const last = await store.runs.listViews({ limit: 2, before: second.next! });
      expect(last).toEqual({ runs: [expect.objectContaining({ runId: runs[0]!.runId, status: 'running' })] });
      expect((await store.runs.listViews({ limit: 10, status: 'running' })).runs.map((view) => view.runId)).toEqual([runs[0]!.runId]);
      expect(await store.runs.view('unknown')).toBeUndefined();
    });
  });
}
