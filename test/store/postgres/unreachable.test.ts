import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import { silentLogger } from '../../../src/log.js';
import type { HookError } from '../../../src/errors.js';
import { createTestDatabase, postgresUrl } from '../../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { rejectionOf, wakeAcceptance } from '../acceptances.js';

describe('the PostgreSQL store when the database becomes unreachable', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let store: PostgresStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    const info = inject('postgres');
    proxy = await startTcpProxy(info.port);
    const url = postgresUrl({ ...info, port: proxy.port }, database.name);
    store = await openPostgresStore({ url, pool: 4, schema: 'public' }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service' });
  }, 60_000);
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await store?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('refuses with STORE_UNAVAILABLE and Retry-After while it is gone, reports unwritable, and recovers by itself', async () => {
    expect((await store.ingress.accept(wakeAcceptance('before'))).kind).toBe('committed');
    await proxy.cut();

    const refusal = (await rejectionOf(store.ingress.accept(wakeAcceptance('during')))) as HookError;
    expect(refusal.code).toBe('STORE_UNAVAILABLE');
    expect(refusal.retryAfterSeconds).toBeGreaterThan(0);
    await expect.poll(() => store.ingress.isWritable(), { timeout: 10_000, interval: 100 }).toBe(false);
    expect(((await rejectionOf(store.runs.countByStatus())) as HookError).code).toBe('STORE_UNAVAILABLE');

    await proxy.restore();
    await expect.poll(() => store.ingress.isWritable(), { timeout: 10_000, interval: 100 }).toBe(true);
    expect((await store.ingress.accept(wakeAcceptance('after'))).kind).toBe('committed');
    const texts = (await store.session.listPending(10)).map((event) => event.text);
    expect(texts).toEqual(['before', 'after']);
  });
});
