import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { createRateHitBatcher } from '../../src/store/sqlite/rate-hits.js';
import { gcra } from '../../src/store/gate-decision.js';
import { createTransactionBuckets } from '../../src/store/sqlite/transaction-buckets.js';
import { inTransaction } from '../../src/store/sqlite/connection.js';

describe('rate hits that arrive together (SQLite)', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('decides each hit of one turn in one transaction: exactly the conforming ones pass, the rest learn the bucket time', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-rate-'));
    const db = openDatabase(join(dir, 'store.sqlite'), { synchronous: 'normal' });
    const hit = createRateHitBatcher(db);
    // 3 per 3 s: GCRA with an interval of 1000 and a tolerance of 2000, so three hits at one instant
    // conform and the bucket is then booked until 13 000: the next conforms 1000 ms later.
    const rule = { limit: 3, periodMs: 3000 };
    const results = await Promise.all(Array.from({ length: 8 }, () => hit({ bucket: 'rate:m:k', rule, now: 10_000 })));
    expect(results.slice(0, 3)).toEqual(Array.from({ length: 3 }, () => ({ allowed: true, retryAfterMs: 0 })));
    expect(results.slice(3)).toEqual(Array.from({ length: 5 }, () => ({ allowed: false, retryAfterMs: 1000 })));
    // Another bucket is its own.
    expect(await hit({ bucket: 'rate:m:other', rule, now: 10_000 })).toEqual({ allowed: true, retryAfterMs: 0 });
    db.close();
  });

  it('rejects every hit of a batch whose transaction could not be written, and writes none of them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-rate-'));
    const path = join(dir, 'store.sqlite');
    const db = openDatabase(path, { synchronous: 'normal' });
    const hit = createRateHitBatcher(db);
    db.close();
    const outcomes = await Promise.allSettled([hit({ bucket: 'rate:m:k', rule: { limit: 1, periodMs: 1 }, now: 1 }), hit({ bucket: 'rate:m:k', rule: { limit: 1, periodMs: 1 }, now: 1 })]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    const reopened = openDatabase(path, { synchronous: 'normal' });
    expect(reopened.prepare('SELECT COUNT(*) AS n FROM limit_buckets').get()).toEqual({ n: 0 });
    reopened.close();
  });

  it('decides hits over many transactions (each bucket read once and written once per transaction) as GCRA on the whole sequence does', () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-rate-'));
    const grouped = openDatabase(join(dir, 'grouped.sqlite'), { synchronous: 'normal' });
    const rules = [{ limit: 3, periodMs: 60_000 }, { limit: 1, periodMs: 1000 }, { limit: 7, periodMs: 10_000 }];
    // A fixed pseudo-random sequence: buckets, rules and times that move forward by uneven steps.
    let seed = 42;
    const next = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    let now = 1_000_000;
    const reference = new Map<string, number>();
    const expected: boolean[] = [];
    const actual: boolean[] = [];
    const counter = { hits: 0 };
    for (let transaction = 0; transaction < 200; transaction += 1) {
      const hits = Array.from({ length: 1 + next(12) }, () => ({ bucket: `rate:m:${next(3)}`, rule: rules[next(3)] as { limit: number; periodMs: number }, now: (now += next(900)) }));
      for (const hit of hits) {
        const verdict = gcra(reference.get(hit.bucket), hit.rule, hit.now);
        if (verdict.allowed) reference.set(hit.bucket, verdict.tat);
        expected.push(verdict.allowed);
      }
      actual.push(
        ...inTransaction(grouped, () => {
          const buckets = createTransactionBuckets(grouped, counter);
          const verdicts = hits.map((hit) => buckets.hit(hit).allowed);
          buckets.flush();
          return verdicts;
        }),
      );
    }
    expect(actual).toEqual(expected);
    expect(expected.filter(Boolean).length).toBeGreaterThan(50);
    expect(expected.filter((allowed) => !allowed).length).toBeGreaterThan(100);
    grouped.close();
  });
});
