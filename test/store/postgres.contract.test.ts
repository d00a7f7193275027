import { afterAll } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { StoreOptions } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { describeStoreContract } from './contract/index.js';

const options: StoreOptions = { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' };

/**
 * The store contract on the PostgreSQL adapter: one database of the run's embedded server for
 * this file, a fresh schema per test (storage.schema), so every test starts empty.
 */
const database = createTestDatabase();
afterAll(async () => (await database).drop());
let schemas = 0;

describeStoreContract('postgres', async () => {
  const { url } = await database;
  schemas += 1;
  const settings = { url, pool: 4, schema: `contract_${schemas}` };
  const store = await openPostgresStore(settings, options);
  return {
    store,
    sibling: (overrides) => openPostgresStore(settings, { ...options, ...overrides }),
    concurrentInstances: true,
    close: () => store.close(),
  };
});
