import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import { silentLogger } from '../../../src/log.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { agentAcceptance } from '../acceptances.js';

describe('the PostgreSQL store: run outcomes, retries, pages, Gmail bookkeeping', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: PostgresStore;
  let clock = 1_000;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore({ url: database.url, pool: 4, schema: 'public' }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service', now: () => clock });
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  async function queued(message: string): Promise<string> {
    clock += 1;
    const acceptance = agentAcceptance(message);
    await store.ingress.accept(acceptance);
    return (acceptance.response.body as { runId: string }).runId;
  }

  it('finishes a run with its exchange, summary event and skipped delivery in one go', async () => {
    const runId = await queued('finish me');
    await store.runs.claim(runId, { owner: 'me', at: 2000, leaseUntil: 9000 });
    await store.runs.finish(runId, {
      status: 'ok',
      at: 3000,
      summary: 'Hook Test: done',
      reply: 'done',
      exchange: { sessionKey: `hook:${runId}`, user: 'finish me', assistant: 'done' },
      event: { at: 3000, text: 'Hook Test: done', mode: 'now', hook: 'agent', runId },
      skipped: { channel: 'log', reason: 'deliver is false' },
    });
    expect(await store.runs.view(runId)).toMatchObject({ status: 'ok', summary: 'Hook Test: done', delivery: { status: 'skipped', reason: 'deliver is false' }, finishedAt: new Date(3000).toISOString() });
    expect(await store.transcripts.read(`hook:${runId}`, 100)).toEqual([
      { role: 'user', content: 'finish me' },
      { role: 'assistant', content: 'done' },
    ]);
    expect((await store.session.pendingViews(10, false)).find((event) => event.runId === runId)).toMatchObject({ text: 'Hook Test: done', mode: 'now' });
    // A finished run holds no claim: it is not taken over.
    expect(await store.runs.recoverAbandoned(10_000_000, () => ({ kind: 'requeue', reason: 'x' }))).toEqual({ requeued: 0, finished: 0 });
  });

  it('recovers a suspended run and can finish it instead of re-queueing it', async () => {
    const runId = await queued('suspend me');
    await store.runs.claim(runId, { owner: 'me', at: 2000, leaseUntil: 99_999_999 });
    await store.runs.suspend(runId, 'shutting down');
    const seen: string[] = [];
    const counts = await store.runs.recoverAbandoned(4000, (row) => {
      seen.push(row.run_id);
      return { kind: 'finish', end: { status: 'interrupted', at: 4000, summary: 'Hook Test (interrupted)', error: 'twice' } };
    });
    expect(seen).toEqual([runId]);
    expect(counts).toEqual({ requeued: 0, finished: 1 });
    expect(await store.runs.view(runId)).toMatchObject({ status: 'interrupted', error: 'twice' });
  });

  it('retries a failed run once: a second retry finds the first, a queued run is not retryable', async () => {
    const runId = await queued('fail me');
    await store.runs.claim(runId, { owner: 'me', at: 2000, leaseUntil: 9000 });
    await store.runs.finish(runId, { status: 'error', at: 2500, summary: 'failed', error: 'boom' });
    // Two retries race: either may reach the database first (each takes a pooled connection), and
    // exactly one queues a new run; the other finds it.
    const outcomes = await Promise.all([store.runs.retry(runId, 'retry-1', 3000), store.runs.retry(runId, 'retry-2', 3000)]);
    const winner = outcomes.find((outcome) => outcome.kind === 'queued');
    expect(winner).toBeDefined();
    const retryId = (winner as { runId: string }).runId;
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['existing', 'queued']);
    expect(outcomes).toContainEqual({ kind: 'existing', runId: retryId });
    expect(await store.runs.view(runId)).toMatchObject({ retriedBy: retryId });
    expect(await store.runs.view(retryId)).toMatchObject({ status: 'queued', retryOf: runId, attempts: 0 });
    const [retried] = (await store.runs.listQueued(100)).filter((row) => row.run_id === retryId);
    expect(JSON.parse(retried!.action)).toMatchObject({ runId: retryId, message: 'fail me' });
    expect(await store.runs.retry(retryId, 'retry-3', 3000)).toEqual({ kind: 'not-retryable', status: 'queued' });
    expect(await store.runs.retry('nope', 'retry-4', 3000)).toEqual({ kind: 'not-found' });
  });

  it('pages runs newest first with a cursor, and filters them', async () => {
    const ids: string[] = [];
    clock = 10_000; // after every run of the tests above
    for (let i = 0; i < 5; i += 1) ids.push(await queued(`page ${i}`));
    const first = await store.runs.listViews({ limit: 2, status: 'queued', hook: 'agent' });
    expect(first.runs.map((run) => run.runId)).toEqual([ids[4], ids[3]]);
    const second = await store.runs.listViews({ limit: 2, status: 'queued', before: first.next! });
    expect(second.runs.map((run) => run.runId)).toEqual([ids[2], ids[1]]);
    expect((await store.runs.listViews({ limit: 10, sessionKey: `hook:${ids[0]}` })).runs.map((run) => run.runId)).toEqual([ids[0]]);
    expect(await store.runs.listViews({ limit: 2, before: 'unknown' })).toEqual({ runs: [] });
  });

  it('keeps Gmail resume points that never move backwards, and admitted ids', async () => {
    await store.gmail.saveHistoryId('me@example.com', '900');
    await store.gmail.saveHistoryId('me@example.com', '1000');
    await store.gmail.saveHistoryId('me@example.com', '999');
    await store.gmail.saveWatch('me@example.com', 123_456, 'pull');
    await store.gmail.saveError('me@example.com', 'quota');
    expect(await store.gmail.read('me@example.com')).toEqual({
      account: 'me@example.com',
      historyId: '1000',
      watchExpiration: 123_456,
      mode: 'pull',
      lastError: 'quota',
      updatedAt: clock,
    });
    await store.gmail.saveError('me@example.com', undefined);
    expect((await store.gmail.readAll()).map((row) => row.lastError)).toEqual([undefined]);
    expect(await store.gmail.isAdmitted('me@example.com', 'm1')).toBe(false);
    await store.gmail.markAdmitted('me@example.com', 'm1');
    await store.gmail.markAdmitted('me@example.com', 'm1');
    expect(await store.gmail.isAdmitted('me@example.com', 'm1')).toBe(true);
  });
});
