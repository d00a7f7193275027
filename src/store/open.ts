import type { Config } from '../config/schema.js';
import type { Store, StoreOptions } from './port.js';
import type { SqliteStoreSeams } from './sqlite/ingress.js';
import { openSqliteStore } from './sqlite/store.js';

export type { SqliteStoreSeams, WriterAccess } from './sqlite/ingress.js';

/** Test-only seams per adapter (fault injection); production passes none. */
export interface StoreSeams {
  sqlite?: SqliteStoreSeams;
}

/**
 * The one place that picks the store adapter from `storage.*`: the composition root
 * (src/service.ts) and the commands open their store here and use only the port (./port.ts).
 * A new adapter is one directory beside ./sqlite/ and one line here. The PostgreSQL adapter (and
 * `pg`, and the sealing it does on this thread) loads only when configured: every SQLite start
 * would otherwise pay for it (docs/performance.md, "Start-up").
 */
export async function openStore(storage: Config['storage'], options: StoreOptions, seams: StoreSeams = {}): Promise<Store> {
  if (storage.url !== undefined) {
    const { openPostgresStore } = await import('./postgres/store.js');
    return openPostgresStore({ url: storage.url, pool: storage.pool, schema: storage.schema }, options);
  }
  return openSqliteStore({ path: storage.path, synchronous: storage.synchronous }, options, seams.sqlite);
}
