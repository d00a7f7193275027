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
 * A new adapter is one directory beside ./sqlite/ and one line here.
 */
export async function openStore(storage: Config['storage'], options: StoreOptions, seams: StoreSeams = {}): Promise<Store> {
  return openSqliteStore({ path: storage.path, synchronous: storage.synchronous }, options, seams.sqlite);
}
