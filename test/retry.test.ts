import { describe, expect, it } from 'vitest';
import { exponentialDelay, parseRetryAfterMs, retryDelay } from '../src/retry.js';

describe('parseRetryAfterMs', () => {
  it('reads seconds, fractions and HTTP dates, and ignores garbage', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfterMs('3', now)).toBe(3000);
    expect(parseRetryAfterMs(' 0.25 ', now)).toBe(250);
    expect(parseRetryAfterMs('-4', now)).toBe(0);
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfterMs('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
  });
});

describe('exponentialDelay', () => {
  it('doubles from the base per step and stops at the cap', () => {
    expect([0, 1, 2, 3, 4, 5].map((step) => exponentialDelay(step, 1, 16))).toEqual([1, 2, 4, 8, 16, 16]);
    expect(exponentialDelay(-1, 10, 100)).toBe(10);
    expect(exponentialDelay(2000, 10, 100)).toBe(100);
  });
});

describe('retryDelay (calls to remote services)', () => {
  const policy = { baseMs: 1000, maxMs: 10_000 };

  it('waits between half of the doubling step and all of it, as the jitter source says, up to the cap', () => {
    const retries = [1, 2, 3, 4, 5, 6];
    expect(retries.map((retry) => retryDelay(retry, undefined, policy, () => 0))).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    expect(retries.map((retry) => retryDelay(retry, undefined, policy, () => 0.5))).toEqual([750, 1500, 3000, 6000, 7500, 7500]);
    expect(retries.map((retry) => retryDelay(retry, undefined, policy, () => 0.999_999_9))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('spreads callers that fail together', () => {
    const waits = new Set(Array.from({ length: 50 }, () => retryDelay(3, undefined, policy)));
    expect(waits.size).toBeGreaterThan(1);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(2000);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(4000);
  });

  it("takes the service's hint as it is, without jitter, capped at maxMs", () => {
    const never = (): number => {
      throw new Error('a hint needs no jitter');
    };
    expect([0, 2500, 60_000, -5].map((hint) => retryDelay(1, hint, policy, never))).toEqual([0, 2500, 10_000, 0]);
  });
});
