/**
 * Child process of debounce-large-group.test.ts: opens the SQLite store at argv[2] as the service
 * does after a restart, runs the debounce firer until no group is left, and prints the run ids it
 * committed. Run with a small heap (--max-old-space-size) to prove firing does not load a group whole.
 */
import type { createDebounceFirer as CreateFirer } from '../../../src/admission/debounce.js';
import type { openSqliteStore as OpenStore } from '../../../src/store/sqlite/store.js';
import type { silentLogger as SilentLogger } from '../../../src/log.js';

// By their .ts paths: bin/source-hooks.js maps the `.js` specifiers of the sources only.
const source = (path: string): string => new URL(`../../../src/${path}`, import.meta.url).href;
const { createDebounceFirer } = (await import(source('admission/debounce.ts'))) as { createDebounceFirer: typeof CreateFirer };
const { openSqliteStore } = (await import(source('store/sqlite/store.ts'))) as { openSqliteStore: typeof OpenStore };
const { silentLogger } = (await import(source('log.ts'))) as { silentLogger: typeof SilentLogger };

const path = process.argv[2];
if (path === undefined) throw new Error('usage: fire-stored-groups.ts <store.sqlite>');
const store = openSqliteStore({ path, synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' });
const firer = createDebounceFirer({ debounce: store.debounce, ingress: store.ingress, owner: 'restarted', logger: silentLogger(), pollMs: 50 });
firer.start();
while ((await store.debounce.countOpen()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
await firer.stop();
const runs = await store.runs.listViews({ limit: 100 });
process.stdout.write(`${JSON.stringify({ runs: runs.runs.map((run) => run.runId) })}\n`);
await store.close();
