/**
 * Retry timing shared by everything that tries again: channel deliveries, the heartbeat after a
 * failure, sandbox workers that keep dying at start-up, runtime writes waiting for the write lock,
 * and the Retry-After hints of the services we call.
 */

/**
 * `baseMs · 2^step`, capped at `maxMs`: step 0 waits baseMs. No jitter: for retriers inside this
 * process (a heartbeat, a worker restart, the write lock); calls to remote services use retryDelay.
 */
export function exponentialDelay(step: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, step), maxMs);
}

/** How calls to a remote service are retried: the first wait, and the cap of every wait (a service's hint too). */
export interface RetryPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * The wait before retry `retry` (1 = the first) of a call to a remote service: the service's own
 * hint (Retry-After) when it gave one, else baseMs · 2^(retry − 1) with equal jitter — half of the
 * step fixed, half random — so that callers refused together (an outage, several instances) do
 * not come back together. Either is capped at maxMs.
 */
export function retryDelay(retry: number, hintMs: number | undefined, policy: RetryPolicy, random: () => number = Math.random): number {
  if (hintMs !== undefined) return Math.min(Math.max(0, hintMs), policy.maxMs);
  const step = exponentialDelay(retry - 1, policy.baseMs, policy.maxMs);
  return Math.round(step / 2 + random() * (step / 2));
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
