import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { PostgresServerInfo } from './embedded-postgres.js';

/** How long a file waits for the run's PostgreSQL server to finish initdb and start. */
const SERVER_READY_MS = 60_000;

export function postgresUrl(info: PostgresServerInfo, database: string): string {
  return `postgres://${info.user}:${info.password}@${info.host}:${info.port}/${database}`;
}

/**
 * A fresh database on the run's shared server (test/global-postgres.ts), so files run in
 * parallel without seeing each other's rows. Returns its URL; drop() removes it.
 */
export async function createTestDatabase(info: PostgresServerInfo = inject('postgres')): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `hg_${randomBytes(6).toString('hex')}`;
  await withAdmin(info, (client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: postgresUrl(info, name),
    name,
    drop: () => withAdmin(info, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function withAdmin<T>(info: PostgresServerInfo, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connectWhenReady(info);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Connects to the `postgres` database, retrying while the server is still starting. */
async function connectWhenReady(info: PostgresServerInfo): Promise<pg.Client> {
  const deadline = Date.now() + SERVER_READY_MS;
  for (;;) {
    const client = new pg.Client({ ...info, database: 'postgres' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`the test PostgreSQL server did not come up within ${SERVER_READY_MS} ms: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
