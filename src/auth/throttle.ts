/**
 * Failed-auth limiter per client address, with backoff:
 *  - `maxFailures` failures inside `windowSeconds` block the address for `windowSeconds`;
 *  - while blocked, every request from it is refused (429) before its token is even looked at, so
 *    the right token gets 429 too: the throttle is no oracle;
 *  - once a block has ended, the next failure blocks again at once, for twice the previous block, up
 *    to `maxBlockSeconds`;
 *  - a success clears the failures of an address that was never blocked (a typo), but not the history
 *    of one that was: another client behind the same address cannot reset a guesser's backoff;
 *  - the history is forgotten after `maxBlockSeconds` without a failure.
 * The table is bounded, so a flood of addresses cannot grow memory without limit. When it is full,
 * the least recently used address goes first (a request or a failure uses it): a blocked guesser
 * that keeps knocking stays blocked however many new addresses arrive.
 */
export interface AuthThrottle {
  /** Seconds to wait when the client is blocked, else undefined. */
  blockedFor(client: string): number | undefined;
  recordFailure(client: string): void;
  recordSuccess(client: string): void;
}

export interface ThrottleOptions {
  maxFailures: number;
  windowSeconds: number;
  /** Longest block; also how long a quiet address keeps its history. Default 3600. */
  maxBlockSeconds?: number;
  maxClients?: number;
  now?: () => number;
}

/** The longest block when the configuration names none: one guess an hour once the backoff has grown. */
export const DEFAULT_MAX_BLOCK_SECONDS = 3600;

interface Entry {
  /** Failures counted towards the first block, and when that count started. */
  failures: number;
  windowStart: number;
  lastFailureAt: number;
  /** 0 until the first block; then the length of the last block imposed. */
  blockMs: number;
  blockedUntil: number;
}

export function createAuthThrottle(options: ThrottleOptions): AuthThrottle {
  const now = options.now ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const maxBlockMs = Math.max(windowMs, (options.maxBlockSeconds ?? DEFAULT_MAX_BLOCK_SECONDS) * 1000);
  const maxClients = options.maxClients ?? 10_000;
  const entries = new Map<string, Entry>();

  /**
   * The live entry of a client, moved to the end of the table's order (the most recently used);
   * a forgotten one (quiet long enough, not blocked) is dropped.
   */
  function current(client: string, at: number): Entry | undefined {
    const entry = entries.get(client);
    if (entry === undefined) return undefined;
    entries.delete(client);
    const quietFor = at - Math.max(entry.lastFailureAt, entry.blockedUntil);
    const forgetAfter = entry.blockMs === 0 ? windowMs : maxBlockMs;
    if (at >= entry.blockedUntil && quietFor >= forgetAfter) return undefined;
    entries.set(client, entry);
    return entry;
  }

  function block(entry: Entry, at: number): void {
    entry.blockMs = entry.blockMs === 0 ? windowMs : Math.min(entry.blockMs * 2, maxBlockMs);
    entry.blockedUntil = at + entry.blockMs;
  }

  function add(client: string, at: number): Entry {
    if (entries.size >= maxClients) {
      const leastRecentlyUsed = entries.keys().next();
      if (leastRecentlyUsed.done !== true) entries.delete(leastRecentlyUsed.value);
    }
    const entry: Entry = { failures: 0, windowStart: at, lastFailureAt: at, blockMs: 0, blockedUntil: 0 };
    entries.set(client, entry);
    return entry;
  }

  return {
    blockedFor(client) {
      const at = now();
      const entry = current(client, at);
      if (entry === undefined || at >= entry.blockedUntil) return undefined;
      return Math.max(1, Math.ceil((entry.blockedUntil - at) / 1000));
    },
    recordFailure(client) {
      const at = now();
      const entry = current(client, at) ?? add(client, at);
      entry.lastFailureAt = at;
      if (entry.blockMs > 0) {
        // Blocked before: every further failure blocks again, longer each time.
        if (at >= entry.blockedUntil) block(entry, at);
        return;
      }
      if (at - entry.windowStart >= windowMs) {
        entry.windowStart = at;
        entry.failures = 0;
      }
      entry.failures += 1;
      if (entry.failures >= options.maxFailures) block(entry, at);
    },
    recordSuccess(client) {
      const entry = current(client, now());
      if (entry !== undefined && entry.blockMs === 0) entries.delete(client);
    },
  };
}
