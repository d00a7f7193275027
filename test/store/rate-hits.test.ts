import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { createRateHitBatcher } from '../../src/store/sqlite/rate-hits.js';

describe('rate hits that arrive together (SQLite)', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('decides each hit of one turn in one transaction: exactly the conforming ones pass, the rest learn the bucket time', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-rate-'));
    const db = openDatabase(join(dir, 'store.sqlite'), { synchronous: 'normal' });
    const hit = createRateHitBatcher(db);
    // GCRA with an interval of 1000 and a tolerance of 2000: three hits at one instant conform.
    const results = await Promise.all(Array.from({ length: 8 }, () => hit({ bucket: 'rate:m:k', now: 10_000, interval: 1000, tolerance: 2000 })));
    expect(results.filter((result) => result.allowed)).toHaveLength(3);
    expect(results.slice(3)).toEqual(Array.from({ length: 5 }, () => ({ allowed: false, tat: 13_000 })));
    // Another bucket is its own.
    expect(await hit({ bucket: 'rate:m:other', now: 10_000, interval: 1000, tolerance: 2000 })).toEqual({ allowed: true });
    db.close();
  });

  it('rejects every hit of a batch whose transaction could not be written, and writes none of them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-rate-'));
    const path = join(dir, 'store.sqlite');
    const db = openDatabase(path, { synchronous: 'normal' });
    const hit = createRateHitBatcher(db);
    db.close();
    const outcomes = await Promise.allSettled([hit({ bucket: 'rate:m:k', now: 1, interval: 1, tolerance: 0 }), hit({ bucket: 'rate:m:k', now: 1, interval: 1, tolerance: 0 })]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    const reopened = openDatabase(path, { synchronous: 'normal' });
    expect(reopened.prepare('SELECT COUNT(*) AS n FROM limit_buckets').get()).toEqual({ n: 0 });
    reopened.close();
  });
});
