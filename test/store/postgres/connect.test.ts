import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/store/postgres/connect.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import { silentLogger } from '../../../src/log.js';
import { HookError } from '../../../src/errors.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { freePort } from '../../helpers/embedded-postgres.js';

describe('opening the PostgreSQL store', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterAll(() => database.drop());

  it('migrates once when several instances open the same schema together', async () => {
    const pools = await Promise.all(
      Array.from({ length: 5 }, () => openPostgres({ url: database.url, pool: 2, schema: 'together', logger: silentLogger(), connectTimeoutMs: 30_000 })),
    );
    try {
      const { rows } = await pools[0]!.query<{ version: number }>('SELECT version FROM hookgate_migrations ORDER BY version');
      expect(rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((_, index) => index + 1));
      const tables = await pools[0]!.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'together' ORDER BY table_name",
      );
      expect(tables.rows.map((row) => row.table_name)).toContain('runs');
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('keeps its tables in the configured schema, apart from another schema of the same database', async () => {
    const a = await openPostgres({ url: database.url, pool: 2, schema: 'tenant_a', logger: silentLogger() });
    const b = await openPostgres({ url: database.url, pool: 2, schema: 'tenant_b', logger: silentLogger() });
    try {
      await a.query("INSERT INTO state (key, value) VALUES ('k', 'in a')");
      expect((await b.query('SELECT * FROM state')).rows).toEqual([]);
      expect((await a.query('SELECT value FROM tenant_a.state')).rows).toEqual([{ value: 'in a' }]);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('returns BIGINT columns as numbers', async () => {
    const pool = await openPostgres({ url: database.url, pool: 2, schema: 'numbers', logger: silentLogger() });
    try {
      const { rows } = await pool.query("INSERT INTO events (created_at, text, mode, hook) VALUES (1700000000000, 't', 'now', 'wake') RETURNING id, created_at");
      expect(rows).toEqual([{ id: 1, created_at: 1_700_000_000_000 }]);
    } finally {
      await pool.end();
    }
  });

  it('refuses with STORE_UNAVAILABLE and a message without the password when nothing listens', async () => {
    const port = await freePort();
    const url = `postgres://hookgate:s3cret-pw@127.0.0.1:${port}/nowhere`;
    const failure = await openPostgres({ url, pool: 2, schema: 'public', logger: silentLogger(), connectTimeoutMs: 2000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HookError);
    expect((failure as HookError).code).toBe('STORE_UNAVAILABLE');
    expect((failure as HookError).message).toMatch(new RegExp(`^PostgreSQL at postgres://hookgate@127\\.0\\.0\\.1:${port}/nowhere: .*ECONNREFUSED`));
    expect((failure as HookError).message).not.toContain('s3cret-pw');
  });

  it('refuses a wrong password with the server’s reason, never the password', async () => {
    const url = database.url.replace(/:[^:@/]+@/, ':wrong-pw-123@');
    const failure = (await openPostgres({ url, pool: 2, schema: 'public', logger: silentLogger() }).catch((error: unknown) => error)) as HookError;
    expect(failure.code).toBe('STORE_UNAVAILABLE');
    expect(failure.message).toMatch(/password authentication failed/);
    expect(failure.message).not.toContain('wrong-pw-123');
  });
});
