/**
 * THE STORE CONTRACT: the guarantees of every method of the store port (src/store/port.ts), as
 * tests any adapter must pass.
 *
 * To hold a new adapter to it, add one runner file beside test/store/sqlite.contract.test.ts:
 *
 *   import { describeStoreContract } from './contract/index.js';
 *   describeStoreContract('postgres', async () => {
 *     const store = await openMyStore(...);            // a fresh, empty database per call
 *     return { store, close: () => store.close(), sibling: () => openMyStore(...same database...), concurrentInstances: true };
 *   });
 *
 * `makeStore` is called once per test and must give an empty database (idempotency TTL of a
 * minute or more). `sibling` (optional) opens a second store on the same database, as the next
 * process after a restart would; the takeover cases are skipped without it. `concurrentInstances`
 * says live instances may share the database at once (PostgreSQL; not SQLite, one process per
 * file): the cross-instance heartbeat lock case runs only then. `close` releases the store.
 */
import { describe } from 'vitest';
import type { Store, StoreOptions } from '../../../src/store/port.js';
import { describeDebounceContract } from './debounce.js';
import { describeHandoffContract } from './handoffs.js';
import { describeIngressContract } from './ingress.js';
import { describeLimitsContract } from './limits.js';
import { describeModelCallsContract } from './model-calls.js';
import { describePendingRunsContract } from './pending-runs.js';
import { describeOwnMessagesContract } from './own-messages.js';
import { describeRateAdmissionContract } from './rate-admission.js';
import { describeRecordsContract } from './records.js';
import { describeRelayContract } from './relay.js';
import { describeRunsContract } from './runs.js';
import { describeSessionContract } from './session.js';
import { describeClockContract } from './clocks.js';

export interface ContractStore {
  store: Store;
  close: () => Promise<void>;
  /** A second store on the same database (the next process after a restart, or another instance), with these options changed. */
  sibling?: (options?: Partial<StoreOptions>) => Promise<Store>;
  /** Several live instances may share the database at once. */
  concurrentInstances?: boolean;
}

export type ContractFactory = () => Promise<ContractStore>;

export function describeStoreContract(name: string, makeStore: ContractFactory): void {
  describe(`store contract: ${name}`, () => {
    describeIngressContract(makeStore);
    describeRunsContract(makeStore);
    describeSessionContract(makeStore);
    describeRecordsContract(makeStore);
    describeDebounceContract(makeStore);
    describePendingRunsContract(makeStore);
    describeLimitsContract(makeStore);
    describeRateAdmissionContract(makeStore);
    describeOwnMessagesContract(makeStore);
    describeClockContract(makeStore);
    describeModelCallsContract(makeStore);
    describeHandoffContract(makeStore);
    describeRelayContract(makeStore);
  });
}
