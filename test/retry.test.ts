import { describe, expect, it } from 'vitest';
import { exponentialDelay, parseRetryAfterMs } from '../src/retry.js';

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
