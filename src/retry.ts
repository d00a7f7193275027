/**
 * Retry timing shared by everything that tries again: channel deliveries, the heartbeat after a
 * failure, sandbox workers that keep dying at start-up, runtime writes waiting for the write lock,
 * and the Retry-After hints of the services we call.
 */

/** `baseMs · 2^step`, capped at `maxMs`: step 0 waits baseMs. No jitter: our retriers are few and independent. */
export function exponentialDelay(step: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, step), maxMs);
}

/**
 * A Retry-After header in milliseconds: delay-seconds (fractions accepted, as some services send
 * them) or an HTTP date; undefined when absent or unreadable. A past date or a negative number is 0.
 */
export function parseRetryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
