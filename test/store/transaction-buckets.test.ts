import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction, openDatabase } from '../../src/store/sqlite/connection.js';
import { gcra } from '../../src/store/gate-decision.js';
import { createTransactionBuckets } from '../../src/store/sqlite/transaction-buckets.js';

describe('rate hits of a SQLite write transaction', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

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
