import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.js';
import type { StoreOptions } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { describeStoreContract } from './contract/index.js';

const options: StoreOptions = { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' };

/** The store contract on the SQLite adapter: a real SQLite file in a fresh temp dir per test. */
describeStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-contract-'));
  const settings = { path: join(dir, 'hookgate.sqlite'), synchronous: 'normal' as const };
  const store = openSqliteStore(settings, options);
  return {
    store,
    // One process per file: a sibling is the next process after a restart.
    sibling: async (overrides) => openSqliteStore(settings, { ...options, role: 'command', ...overrides }),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
