import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { Store } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { until } from '../helpers/wait.js';

/**
 * A checkpoint copies the WAL's pages into the database file and syncs both: on the event loop it
 * stalled every request for milliseconds (tens on a busy disk), several times a second under the
 * soak's load. The service's own connections on the main thread therefore never checkpoint; the
 * store's writer thread does, after its commits and, when it has none, on a timer.
 */
describe('SQLite checkpoints in the service', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function open(idleCheckpointMs: number): { store: Store; path: string } {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-checkpoints-'));
    dirs.push(dir);
    const path = join(dir, 'store.sqlite');
    const store = openSqliteStore({ path, synchronous: 'normal' }, { role: 'service', logger: silentLogger(), idempotencyTtlMs: 86_400_000 }, { idleCheckpointMs });
    stores.push(store);
    return { store, path };
  }

  /** What the runtime writes on its own connection (the main thread's): pending events of `kb` KiB each. */
  async function runtimeWrites(store: Store, count: number, kb: number): Promise<void> {
    for (let index = 0; index < count; index += 1) await store.session.addEvent({ at: index, text: 'x'.repeat(kb * 1024), mode: 'next-heartbeat', hook: 'wake' });
  }

  it('never checkpoints on the event loop, however large the WAL grows', async () => {
    const { store, path } = open(0);
    const before = statSync(path).size;
    // ~2 pages each: well past wal_autocheckpoint's 1,000 pages.
    await runtimeWrites(store, 800, 6);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(1000 * 4096);
    expect(statSync(path).size).toBe(before);
  });

  it('checkpoints what the event loop wrote from the writer thread while no request is committed', async () => {
    const { store, path } = open(10);
    const before = statSync(path).size;
    // Far below wal_autocheckpoint's 1,000 pages: only the writer's own timer copies them.
    await runtimeWrites(store, 50, 6);
    await until(() => statSync(path).size >= before + 50 * 6 * 1024);
    expect(statSync(path).size).toBeGreaterThan(before);
  });
});
