import type { Context } from 'koa';
import { HookError } from '../errors.js';
import type { AuthThrottle } from './throttle.js';
import { clientLimitKey } from './client-key.js';

/** The client a request counts against: the peer, or the first untrusted X-Forwarded-For hop. */
export type ClientAddressOf = (peer: string | undefined, forwardedFor: string | string[] | undefined) => string;

export interface AuthGuardDeps {
  throttle: AuthThrottle;
  clientAddress: ClientAddressOf;
}

/** One credential check in progress, bound to its client. */
export interface AuthAttempt {
  /** The client's address, as the log lines name it. */
  client: string;
  /** What the per-client limits count it under: the address, an IPv6 client's /64 (./client-key.ts). */
  key: string;
  /** Clears the client's failures (the throttle decides whether a block lifts). */
  succeeded(): void;
  /** Counts a failure for the client and throws the refusal. */
  failed(refusal: unknown): never;
}

/**
 * The sequence every credential check shares — hook token, signature, the gateway token of /metrics
 * and of the console login: find the client, refuse a blocked one (429) before anything it carries is
 * looked at (so even the right credential gets 429 while the block lasts: the throttle is no oracle),
 * then count the outcome, under the client's key (an IPv6 client's /64). The client's address is
 * left on `ctx.state.client` for the rejection log line.
 */
export function beginAuth(ctx: Context, deps: AuthGuardDeps): AuthAttempt {
  const client = deps.clientAddress(ctx.req.socket.remoteAddress, ctx.req.headers['x-forwarded-for']);
  ctx.state['client'] = client;
  const key = clientLimitKey(client);
  const wait = deps.throttle.blockedFor(key);
  if (wait !== undefined) {
    throw new HookError('TOO_MANY_AUTH_FAILURES', 'too many failed authentication attempts', { retryAfterSeconds: wait });
  }
  return {
    client,
    key,
    succeeded: () => deps.throttle.recordSuccess(key),
    failed: (refusal) => {
      deps.throttle.recordFailure(key);
      throw refusal;
    },
  };
}

/** The 401 for a missing or wrong token (`what`: "hook token", "token"…), with the challenge a client expects. */
export function tokenRefusal(what: string, presented: boolean): HookError {
  return new HookError('UNAUTHORIZED', `${presented ? 'invalid' : 'missing'} ${what}`, { headers: { 'WWW-Authenticate': 'Bearer' } });
}
