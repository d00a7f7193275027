import { describe, expect, it } from 'vitest';
import { IsolateLru } from '../../src/sandbox/isolate-lru.js';

const MB = 1024 * 1024;

function lru(budgetMb: number, idleMs = 0): { cache: IsolateLru; advance: (ms: number) => void } {
  let clock = 0;
  const cache = new IsolateLru({ budgetBytes: budgetMb * MB, idleMs, now: () => clock });
  return { cache, advance: (ms) => void (clock += ms) };
}

function use(cache: IsolateLru, key: string, heapMb: number): void {
  cache.begin(key);
  cache.done(key, heapMb * MB);
}

describe('the isolate LRU of a sandbox worker', () => {
  it('keeps isolates while their heaps fit the budget', () => {
    const { cache } = lru(10);
    use(cache, 'a', 3);
    use(cache, 'b', 3);
    use(cache, 'c', 3);
    expect(cache.evictions()).toEqual([]);
    expect(cache.heapBytes).toBe(9 * MB);
  });

  it('past the budget, gives up the least recently used first', () => {
    const { cache } = lru(6);
    use(cache, 'a', 3);
    use(cache, 'b', 3);
    use(cache, 'a', 3); // a is now the most recent
    use(cache, 'c', 3);
    expect(cache.evictions()).toEqual(['b']);
  });

  it('keeps the most recently used isolate even when it alone exceeds the budget', () => {
    const { cache } = lru(0);
    use(cache, 'a', 2);
    use(cache, 'b', 2);
    expect(cache.evictions()).toEqual(['a']);
    cache.forget('a');
    expect(cache.evictions()).toEqual([]);
  });

  it('never gives up an isolate that is running a call', () => {
    const { cache } = lru(1);
    use(cache, 'a', 2);
    cache.begin('a'); // a call of a starts
    use(cache, 'b', 2);
    expect(cache.evictions()).toEqual([]);
    cache.done('a', 2 * MB);
    expect(cache.evictions()).toEqual(['b']);
  });

  it('gives up isolates idle for idleMs, and only those', () => {
    const { cache, advance } = lru(100, 60_000);
    use(cache, 'a', 1);
    advance(30_000);
    use(cache, 'b', 1);
    expect(cache.evictions()).toEqual([]);
    advance(30_000);
    expect(cache.evictions()).toEqual(['a']);
    advance(30_000);
    expect(cache.evictions()).toEqual(['a', 'b']);
  });

  it('forgets an isolate that ended without a heap (reset after a limit)', () => {
    const { cache } = lru(100);
    use(cache, 'a', 1);
    cache.begin('a');
    cache.done('a', undefined);
    expect(cache.size).toBe(0);
    expect(cache.heapBytes).toBe(0);
  });
});
