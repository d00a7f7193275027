import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { createSqliteIngress } from '../../src/store/sqlite/ingress.js';
import { until } from '../helpers/wait.js';

describe('idempotency key maintenance', () => {
  const dirs: string[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('purges every expired key in bounded slices and keeps the fresh ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-maint-'));
    dirs.push(dir);
    const path = join(dir, 's.sqlite');
    const db = openDatabase(path, { synchronous: 'normal' });
    const insert = db.prepare("INSERT INTO idempotency (key, created_at, fingerprint, response) VALUES (?, ?, 'f', '{}')");
    db.exec('BEGIN');
    for (let index = 0; index < 4500; index += 1) insert.run(`old-${index}`, 1_000);
    for (let index = 0; index < 10; index += 1) insert.run(`new-${index}`, 9_000_000);
    db.exec('COMMIT');
    const clock = 10_000_000;
    const store = createSqliteIngress(db, {
      path,
      synchronous: 'normal',
      idempotencyTtlMs: 5_000_000,
      now: () => clock,
      logger: silentLogger(),
      maintenanceIntervalMs: 5,
      warmUp: true,
    });
    cleanups.push(async () => {
      await store.close();
      db.close();
    });
    const count = db.prepare('SELECT count(*) AS n FROM idempotency');
    await until(() => (count.get() as { n: number }).n <= 10);
    const keys = (db.prepare('SELECT key FROM idempotency ORDER BY key').all() as Array<{ key: string }>).map((row) => row.key);
    expect(keys).toEqual(Array.from({ length: 10 }, (_, index) => `new-${index}`).sort());
  });
});
