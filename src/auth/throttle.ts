/**
 * Failed-auth limiter per client address. A client with `maxFailures` failures inside the
 * window is refused (429) until the window of its first failure ends. A valid token always
 * passes and clears the client's record. The table is bounded, so a flood of addresses cannot
 * grow memory without limit (the oldest entries go first).
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
  maxClients?: number;
  now?: () => number;
}

interface Entry {
  firstFailureAt: number;
  failures: number;
}

export function createAuthThrottle(options: ThrottleOptions): AuthThrottle {
  const now = options.now ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const maxClients = options.maxClients ?? 10_000;
  const entries = new Map<string, Entry>();

  function current(client: string): Entry | undefined {
    const entry = entries.get(client);
    if (entry === undefined) return undefined;
    if (now() - entry.firstFailureAt >= windowMs) {
      entries.delete(client);
      return undefined;
    }
    return entry;
  }

  return {
    blockedFor(client) {
      const entry = current(client);
      if (entry === undefined || entry.failures < options.maxFailures) return undefined;
      return Math.max(1, Math.ceil((entry.firstFailureAt + windowMs - now()) / 1000));
    },
    recordFailure(client) {
      const entry = current(client);
      if (entry !== undefined) {
        entry.failures += 1;
        return;
      }
      if (entries.size >= maxClients) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      entries.set(client, { firstFailureAt: now(), failures: 1 });
    },
    recordSuccess(client) {
      entries.delete(client);
    },
  };
}
