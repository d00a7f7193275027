import { describe, expect, it } from 'vitest';
import { createRandomIdSource } from '../../src/envelope/random-id.js';

describe('the pooled random id source', () => {
  it('hands out distinct ids of the requested size across several pool refills', () => {
    const next = createRandomIdSource(16);
    const ids = Array.from({ length: 2000 }, () => next());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
  });

  it('gives independent sources independent ids', () => {
    const a = createRandomIdSource(16);
    const b = createRandomIdSource(16);
    expect(a()).not.toBe(b());
  });
});
