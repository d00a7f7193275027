import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import { silentLogger } from '../../../src/log.js';
import { HookError } from '../../../src/errors.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { agentAcceptance, rejectionOf, responseOf, wakeAcceptance } from '../acceptances.js';

/** Two store objects on one database stand for two instances of the service. */
describe('the PostgreSQL store shared by several instances', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const opened: PostgresStore[] = [];
  let schemaCount = 0;

  async function instances(count: number): Promise<PostgresStore[]> {
    schemaCount += 1;
    const schema = `shared_${schemaCount}`;
    const stores = await Promise.all(
      Array.from({ length: count }, () => openPostgresStore({ url: database.url, pool: 6, schema }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service' })),
    );
    opened.push(...stores);
    return stores;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  afterAll(() => database.drop());

  it('commits the acceptances of one turn together and only then resolves them', async () => {
    const [a] = await instances(1);
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => a!.ingress.accept(i % 2 === 0 ? wakeAcceptance(`w${i}`) : agentAcceptance(`m${i}`))));
    expect(outcomes.every((outcome) => outcome.kind === 'committed')).toBe(true);
    expect(a!.ingress.commitCount()).toBeLessThan(50);
    const depths = await a!.depths();
    expect(depths.pendingEvents).toBe(25);
    expect(depths.runs.queued).toBe(25);
    // Event ids follow the order the requests were accepted in.
    const pending = await a!.session.listPending(100);
    expect(pending.map((event) => event.text)).toEqual(Array.from({ length: 25 }, (_, i) => `w${i * 2}`));
  });

  it('answers a retry that lands on another instance with the first response, and refuses another body under the key', async () => {
    const [a, b] = await instances(2);
    const first = agentAcceptance('once', 'key-1');
    const retry = { ...agentAcceptance('once', 'key-1'), idempotency: first.idempotency! };
    const [one, two] = await Promise.all([a!.ingress.accept(first), b!.ingress.accept(retry)]);
    const kinds = [one.kind, two.kind].sort();
    expect(kinds).toEqual(['committed', 'replayed']);
    expect(responseOf(one)).toEqual(responseOf(two));
    expect((await a!.depths()).runs.queued).toBe(1);
    const conflict = await rejectionOf(b!.ingress.accept(wakeAcceptance('other', 'key-1', 'fp:other')));
    expect((conflict as HookError).code).toBe('IDEMPOTENCY_CONFLICT');
    expect(await b!.ingress.replay('key-1', first.idempotency!.fingerprint)).toEqual(responseOf(one));
  });

  it('judges repeated keys within one batch against the first of them', async () => {
    const [a] = await instances(1);
    const results = await Promise.allSettled([
      a!.ingress.accept(wakeAcceptance('same', 'dup')),
      a!.ingress.accept(wakeAcceptance('same', 'dup')),
      a!.ingress.accept(wakeAcceptance('different', 'dup', 'fp:different')),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.kind : (r.reason as HookError).code))).toEqual(['committed', 'replayed', 'IDEMPOTENCY_CONFLICT']);
    expect(await a!.session.countPending()).toBe(1);
  });

  it('lets exactly one of several instances claim a run', async () => {
    const stores = await instances(3);
    const accepted = agentAcceptance('claim me');
    await stores[0]!.ingress.accept(accepted);
    const runId = (accepted.response.body as { runId: string }).runId;
    const claims = await Promise.all(stores.map((store, i) => store.runs.claim(runId, { owner: `i${i}`, at: 1000, leaseUntil: 61_000 })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await stores[1]!.runs.view(runId)).toMatchObject({ status: 'running', attempts: 1 });
  });

  it('requeues a run whose lease ran out (its instance died), once, keeping its attempts; the old owner cannot renew it', async () => {
    const [a, b, c] = await instances(3);
    const accepted = agentAcceptance('lease');
    await a!.ingress.accept(accepted);
    const runId = (accepted.response.body as { runId: string }).runId;
    expect(await a!.runs.claim(runId, { owner: 'a', at: 1000, leaseUntil: 5000 })).toBe(true);
    expect(await a!.runs.renewLease(runId, 'a', 9000)).toBe(true);
    const requeue = () => ({ kind: 'requeue' as const, reason: 'its instance stopped' });
    expect(await b!.runs.recoverAbandoned(8999, requeue)).toEqual({ requeued: 0, finished: 0 });
    const both = await Promise.all([b!.runs.recoverAbandoned(9001, requeue), c!.runs.recoverAbandoned(9001, requeue)]);
    expect(both.reduce((sum, counts) => sum + counts.requeued, 0)).toBe(1);
    expect(await a!.runs.renewLease(runId, 'a', 20_000)).toBe(false);
    expect(await b!.runs.view(runId)).toMatchObject({ status: 'queued', attempts: 1, error: 'its instance stopped' });
    expect(await b!.runs.claim(runId, { owner: 'b', at: 9002, leaseUntil: 20_000 })).toBe(true);
    expect(await b!.runs.view(runId)).toMatchObject({ status: 'running', attempts: 2 });
  });

  it('runs one heartbeat at a time across instances, and frees the lock when its holder’s connection dies', async () => {
    const [a, b] = await instances(2);
    // fn signals when it runs, i.e. when its instance holds the lock.
    const holdUntilReleased = <T,>(value: T) => {
      let release!: () => void;
      let running!: () => void;
      const started = new Promise<void>((resolve) => (running = resolve));
      const fn = () => new Promise<T>((resolve) => ((release = () => resolve(value)), running()));
      return { fn, started, release: () => release() };
    };
    const first = holdUntilReleased('a done');
    const holding = a!.session.withHeartbeatLock(first.fn);
    await first.started;
    expect(await b!.session.withHeartbeatLock(async () => 'b')).toEqual({ held: false });
    first.release();
    expect(await holding).toEqual({ held: true, value: 'a done' });
    expect(await b!.session.withHeartbeatLock(async () => 'b')).toEqual({ held: true, value: 'b' });

    // A holder whose database connection ends (its process was killed) holds nothing any more.
    const stuck = holdUntilReleased(undefined);
    const stuckHolding = a!.session.withHeartbeatLock(stuck.fn);
    await stuck.started;
    expect(await b!.session.withHeartbeatLock(async () => 'b')).toEqual({ held: false });
    await b!.pool.query(
      // Only this file's database: other files share the server and hold advisory locks of their own.
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    await expect.poll(async () => (await b!.session.withHeartbeatLock(async () => 'b')).held, { timeout: 10_000 }).toBe(true);
    stuck.release();
    await stuckHolding; // its unlock finds the connection gone: the connection is dropped, not pooled again
  });

  it('consumes each event exactly once when two heartbeats read the same events', async () => {
    const [a, b] = await instances(2);
    for (const text of ['e1', 'e2', 'e3']) await a!.session.addEvent({ at: 1, text, mode: 'now', hook: 'wake' });
    const ids = (await a!.session.listPending(10)).map((event) => event.id);
    const exchange = { sessionKey: 'main', user: 'q', assistant: 'r' };
    const [ha, hb] = await Promise.all([a!.session.startHeartbeat(2, 3), b!.session.startHeartbeat(2, 2)]);
    const [byA, byB] = await Promise.all([
      a!.session.finishHeartbeat(ha, { status: 'ok', at: 3, reply: 'r', consume: ids, exchange }),
      b!.session.finishHeartbeat(hb, { status: 'ok', at: 3, reply: 'r', consume: ids.slice(1), exchange }),
    ]);
    expect([...byA, ...byB].sort((x, y) => x - y)).toEqual(ids);
    expect(await a!.session.countPending()).toBe(0);
    // Both exchanges were appended to the shared transcript without a sequence collision.
    expect(await b!.transcripts.read('main', 1000)).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'r' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'r' },
    ]);
  });

  it('shares the last route and a channel’s last recipient', async () => {
    const [a, b] = await instances(2);
    await a!.deliveries.record({ at: 1, channel: 'telegram', recipient: '42', status: 'delivered' }, { channel: 'telegram', to: '42' });
    expect(await b!.deliveries.lastRoute()).toEqual({ channel: 'telegram', to: '42' });
    expect(await b!.deliveries.lastRecipient('telegram')).toBe('42');
  });
});
