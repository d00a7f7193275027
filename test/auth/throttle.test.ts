import { describe, expect, it } from 'vitest';
import { createAuthThrottle, type AuthThrottle } from '../../src/auth/throttle.js';
import { guessesAllowed } from '../../bench/lib/throttle-rate.js';

function clockAt(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let at = start;
  return { now: () => at, advance: (ms) => (at += ms) };
}

function fail(throttle: AuthThrottle, client: string, times: number): void {
  for (let i = 0; i < times; i += 1) throttle.recordFailure(client);
}

describe('the failed-auth throttle', () => {
  it('blocks an address after maxFailures failures within the window, for windowSeconds', () => {
    const clock = clockAt();
    const throttle = createAuthThrottle({ maxFailures: 3, windowSeconds: 60, now: clock.now });
    fail(throttle, 'a', 2);
    expect(throttle.blockedFor('a')).toBeUndefined();
    fail(throttle, 'a', 1);
    expect(throttle.blockedFor('a')).toBe(60);
    expect(throttle.blockedFor('b')).toBeUndefined();
    clock.advance(60_000);
    expect(throttle.blockedFor('a')).toBeUndefined();
  });

  it('lengthens the block with each failure after one: 60 s, 120 s, 240 s … up to maxBlockSeconds', () => {
    const clock = clockAt();
    const throttle = createAuthThrottle({ maxFailures: 3, windowSeconds: 60, maxBlockSeconds: 600, now: clock.now });
    fail(throttle, 'a', 3);
    const blocks: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const wait = throttle.blockedFor('a') ?? 0;
      blocks.push(wait);
      clock.advance(wait * 1000);
      expect(throttle.blockedFor('a')).toBeUndefined();
      throttle.recordFailure('a');
    }
    expect(blocks).toEqual([60, 120, 240, 480, 600, 600]);
  });

  it('does not let a success wipe the history of an address that was blocked, but forgets a typo', () => {
    const clock = clockAt();
    const throttle = createAuthThrottle({ maxFailures: 3, windowSeconds: 60, now: clock.now });
    fail(throttle, 'typo', 2);
    throttle.recordSuccess('typo');
    fail(throttle, 'typo', 2);
    expect(throttle.blockedFor('typo')).toBeUndefined();

    fail(throttle, 'guesser', 3);
    clock.advance(60_000);
    throttle.recordSuccess('guesser'); // another client behind the same address
    throttle.recordFailure('guesser');
    expect(throttle.blockedFor('guesser')).toBe(120);
  });

  it('when the table is full, drops the least recently used address, not the first one added', () => {
    const clock = clockAt();
    const throttle = createAuthThrottle({ maxFailures: 1, windowSeconds: 60, maxClients: 3, now: clock.now });
    fail(throttle, 'a', 1);
    fail(throttle, 'b', 1);
    fail(throttle, 'c', 1);
    clock.advance(1_000);
    expect(throttle.blockedFor('a')).toBe(59); // a request from a: it is the most recently used now
    fail(throttle, 'd', 1);
    expect(['a', 'b', 'c', 'd'].map((client) => throttle.blockedFor(client))).toEqual([59, undefined, 59, 60]);
  });

  it('forgets an address after maxBlockSeconds without a failure', () => {
    const clock = clockAt();
    const throttle = createAuthThrottle({ maxFailures: 2, windowSeconds: 60, maxBlockSeconds: 300, now: clock.now });
    fail(throttle, 'a', 2);
    clock.advance(60_000 + 300_000);
    throttle.recordFailure('a');
    expect(throttle.blockedFor('a')).toBeUndefined();
  });

  it('lets the documented number of guesses through in an hour and a day (docs/security.md)', () => {
    // 20 in the first window, then one per block: at 60, 180, 420, 900, 1860 s, then one per 3600 s.
    expect(guessesAllowed({ maxFailures: 20, windowSeconds: 60, maxBlockSeconds: 3600 }, 60_000)).toBe(20);
    expect(guessesAllowed({ maxFailures: 20, windowSeconds: 60, maxBlockSeconds: 3600 }, 3_600_000)).toBe(25);
    expect(guessesAllowed({ maxFailures: 20, windowSeconds: 60, maxBlockSeconds: 3600 }, 86_400_000)).toBe(48);
  });
});
