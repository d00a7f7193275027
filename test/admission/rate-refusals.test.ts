import { describe, expect, it } from 'vitest';
import { createRateRefusals } from '../../src/admission/rate-refusals.js';
import { gcra } from '../../src/store/gate-decision.js';

const RULE = { limit: 2, periodMs: 60_000 };

describe('the refusals a process remembers', () => {
  it('knows a bucket full until one ms before the store said, then forgets it', () => {
    const refusals = createRateRefusals();
    refusals.remember('rate:m:a', RULE, 1000, 30_000);
    expect(refusals.fullFor('rate:m:a', RULE, 1000)).toBe(29_999);
    expect(refusals.fullFor('rate:m:a', RULE, 30_998)).toBe(1);
    expect(refusals.fullFor('rate:m:a', RULE, 30_999)).toBeUndefined();
    expect(refusals.fullFor('rate:m:a', RULE, 1000)).toBeUndefined();
  });

  it('never refuses a hit the store would take: at every ms, what it knows agrees with GCRA on the same bucket', () => {
    const refusals = createRateRefusals();
    let tat: number | undefined;
    let refusedFromMemory = 0;
    const wronglyRefused: number[] = [];
    for (let now = 0; now < 200_000; now += 7) {
      const known = refusals.fullFor('rate:m:a', RULE, now);
      const verdict = gcra(tat, RULE, now);
      if (known !== undefined) refusedFromMemory += 1;
      if (known !== undefined && verdict.allowed) wronglyRefused.push(now);
      if (verdict.allowed) tat = verdict.tat;
      else refusals.remember('rate:m:a', RULE, now, verdict.retryAfterMs);
    }
    expect(wronglyRefused).toEqual([]);
    expect(refusedFromMemory).toBeGreaterThan(20_000);
    expect(tat).toBeGreaterThan(190_000);
  });

  it('keys by rule, so a reload that changes the limit starts afresh, and by bucket', () => {
    const refusals = createRateRefusals();
    refusals.remember('rate:m:a', RULE, 0, 10_000);
    expect(refusals.fullFor('rate:m:a', { limit: 3, periodMs: 60_000 }, 0)).toBeUndefined();
    expect(refusals.fullFor('rate:m:b', RULE, 0)).toBeUndefined();
    expect(refusals.fullFor('rate:m:a', RULE, 0)).toBe(9999);
  });

  it('holds at most its bound: expired entries go first, then the oldest', () => {
    const refusals = createRateRefusals(3);
    refusals.remember('b1', RULE, 0, 100);
    refusals.remember('b2', RULE, 0, 10_000);
    refusals.remember('b3', RULE, 0, 10_000);
    refusals.remember('b4', RULE, 200, 10_000); // b1 has expired: it makes room
    expect(['b1', 'b2', 'b3', 'b4'].map((bucket) => refusals.fullFor(bucket, RULE, 200) !== undefined)).toEqual([false, true, true, true]);
    refusals.remember('b5', RULE, 300, 10_000); // all live: the oldest (b2) goes
    expect(['b2', 'b3', 'b4', 'b5'].map((bucket) => refusals.fullFor(bucket, RULE, 300) !== undefined)).toEqual([false, true, true, true]);
  });
});
