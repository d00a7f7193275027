import { createAuthThrottle, type ThrottleOptions } from '../../src/auth/throttle.js';

/**
 * How many guesses one address gets through the failed-auth throttle within `durationMs`, for an
 * attacker who guesses as fast as it likes and retries the moment a block ends. Computed with the
 * throttle itself on an injected clock, so it measures the code, not a model of it.
 */
export function guessesAllowed(options: Omit<ThrottleOptions, 'now'>, durationMs: number): number {
  let at = 0;
  const throttle = createAuthThrottle({ ...options, now: () => at });
  let guesses = 0;
  while (at < durationMs) {
    const wait = throttle.blockedFor('attacker');
    if (wait !== undefined) {
      at += wait * 1000;
      continue;
    }
    throttle.recordFailure('attacker');
    guesses += 1;
  }
  return guesses;
}
