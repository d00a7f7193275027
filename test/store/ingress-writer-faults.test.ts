import { afterEach, describe, expect, it } from 'vitest';
import { agent, agentAcceptance, rejectionOf, storeFixture, wakeAcceptance, type StoreFixture } from './helpers.js';

const MAX_PAGES = 1_073_741_823;

describe('the ingress store when its writer fails', () => {
  let fixture: StoreFixture | undefined;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });

  function pageCount(): number {
    return (fixture!.db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  }

  it('rolls back a whole batch when the disk fills, refuses each caller with Retry-After, and recovers', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    expect(store.isWritable()).toBe(true);
    await fixture.faults.pragma('max_page_count', pageCount() + 2);
    expect(store.isWritable()).toBe(false);
    const batch = [wakeAcceptance('small', 'k-small'), agentAcceptance(`big ${'x'.repeat(60_000)}`), wakeAcceptance('after the big one')];
    const results = await Promise.allSettled(batch.map((acceptance) => store.accept(acceptance)));
    expect(fixture.faults.commitCount()).toBe(0);
    for (const result of results) {
      expect(result).toMatchObject({ status: 'rejected', reason: { code: 'STORE_UNAVAILABLE', status: 503 } });
      expect(result.status === 'rejected' && (result.reason as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    }
    expect(fixture.count('SELECT count(*) AS n FROM events') + fixture.count('SELECT count(*) AS n FROM runs')).toBe(0);
    expect(fixture.count('SELECT count(*) AS n FROM idempotency')).toBe(0);
    expect(fixture.logs.some((line) => line['event'] === 'store.commit_failed')).toBe(true);

    await fixture.faults.pragma('max_page_count', MAX_PAGES);
    expect(store.isWritable()).toBe(true);
    await Promise.all(batch.map((acceptance) => store.accept(acceptance)));
    expect(fixture.count('SELECT count(*) AS n FROM events') + fixture.count('SELECT count(*) AS n FROM runs')).toBe(3);
  });

  it('refuses writes and reports not writable while the writing connection is read-only', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    await fixture.faults.pragma('query_only', true);
    expect(store.isWritable()).toBe(false);
    expect(await rejectionOf(store.accept(wakeAcceptance('read-only', 'ro')))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await fixture.faults.pragma('query_only', false);
    expect(store.isWritable()).toBe(true);
    expect(await store.accept(wakeAcceptance('read-only', 'ro'))).toMatchObject({ kind: 'committed' });
    expect(fixture.count("SELECT count(*) AS n FROM events WHERE text = 'read-only'")).toBe(1);
  });

  it('refuses debounce joins with STORE_UNAVAILABLE while the writer cannot write, writes none of them, and joins again once it can', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    const item = (key: string) => ({
      acceptance: { joins: [{ mappingId: 'gh-pr', key, action: agent(`push to ${key}`), windowMs: 30_000, maxWaitMs: 300_000, keep: 'last' as const, maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 }], idempotency: { key: `delivery-${key}`, fingerprint: `fp-${key}` } },
      at: Date.now(),
    });
    await fixture.faults.pragma('query_only', true);
    expect(await rejectionOf(store.join([item('repo#1'), item('repo#2')]))).toMatchObject({ code: 'STORE_UNAVAILABLE', retryAfterSeconds: 5 });
    expect(fixture.count('SELECT count(*) AS n FROM debounce_groups') + fixture.count('SELECT count(*) AS n FROM idempotency')).toBe(0);
    await fixture.faults.pragma('query_only', false);
    const joined = await store.join([item('repo#1'), item('repo#1'), item('repo#2')]);
    expect(joined.map((result) => result.kind)).toEqual(['committed', 'replayed', 'committed']);
    expect(fixture.count('SELECT count(*) AS n FROM debounce_groups')).toBe(2);
  });

  it('refuses the batch in flight when the writer dies mid-commit, logs it, and commits the next batch on a new writer', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    await store.accept(wakeAcceptance('before'));
    await fixture.faults.crashDuringNextCommit();
    const lost = await Promise.allSettled([store.accept(wakeAcceptance('lost 1', 'lost')), store.accept(agentAcceptance('lost 2'))]);
    expect(lost.map((result) => result.status === 'rejected' && (result.reason as { code: string }).code)).toEqual([
      'STORE_UNAVAILABLE',
      'STORE_UNAVAILABLE',
    ]);
    expect(fixture.logs.filter((line) => line['event'] === 'store.writer_died')).toHaveLength(1);
    expect(fixture.count("SELECT count(*) AS n FROM events WHERE text = 'lost 1'")).toBe(0);
    expect(fixture.count('SELECT count(*) AS n FROM runs')).toBe(0);
    expect(fixture.count('SELECT count(*) AS n FROM idempotency')).toBe(0);

    expect(await store.accept(wakeAcceptance('lost 1', 'lost'))).toMatchObject({ kind: 'committed' });
    expect(fixture.count('SELECT count(*) AS n FROM events')).toBe(2);
  });

  it('starts a new writer for the next batch after the thread was terminated while idle', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    await store.accept(wakeAcceptance('one'));
    await fixture.faults.terminateWriter();
    expect(store.isWritable()).toBe(false);
    expect(await store.accept(wakeAcceptance('two'))).toMatchObject({ kind: 'committed' });
    expect(fixture.count('SELECT count(*) AS n FROM events')).toBe(2);
    expect(fixture.logs.filter((line) => line['event'] === 'store.writer_died')).toHaveLength(1);
  });

  it('commits everything queued on close, then refuses new work with SHUTTING_DOWN', async () => {
    fixture = storeFixture();
    const { store } = fixture;
    const queued = Array.from({ length: 25 }, (_, index) => store.accept(wakeAcceptance(`queued ${index}`)));
    const closing = store.close();
    expect(await rejectionOf(store.accept(wakeAcceptance('late')))).toMatchObject({ code: 'SHUTTING_DOWN', status: 503 });
    await closing;
    expect((await Promise.all(queued)).every((outcome) => outcome.kind === 'committed')).toBe(true);
    expect(fixture.count('SELECT count(*) AS n FROM events')).toBe(25);
    expect(store.isWritable()).toBe(false);
    expect(fixture.logs.some((line) => line['event'] === 'store.writer_died')).toBe(false);
  });
});
