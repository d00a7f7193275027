import type { Middleware } from 'koa';
import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AuthThrottle } from '../auth/throttle.js';
import { createTokenMatcher, extractToken } from '../auth/token.js';

export interface HookAuthDeps {
  token: string;
  throttle: AuthThrottle;
  clientAddress: (peer: string | undefined, forwardedFor: string | string[] | undefined) => string;
  logger: Logger;
  /** hooks.compat.openclawHeaders. */
  openclawHeaders?: boolean;
}

/**
 * Token check with failed-auth throttling. A blocked client is refused (429) before its token is
 * looked at, so even the right token gets 429 while the block lasts: the throttle answers the same
 * whatever a guess carries. A success clears only the failures of a client that was never blocked.
 */
export function hookAuth(deps: HookAuthDeps): Middleware {
  const matches = createTokenMatcher(deps.token);
  return async (ctx, next) => {
    const client = deps.clientAddress(ctx.req.socket.remoteAddress, ctx.req.headers['x-forwarded-for']);
    ctx.state['client'] = client;
    const wait = deps.throttle.blockedFor(client);
    if (wait !== undefined) {
      throw new HookError('TOO_MANY_AUTH_FAILURES', 'too many failed authentication attempts', { retryAfterSeconds: wait });
    }
    const presented = extractToken(ctx.req.headersDistinct, ctx.querystring, { openclawHeader: deps.openclawHeaders === true });
    if (presented !== undefined && matches(presented.value)) {
      deps.throttle.recordSuccess(client);
      if (presented.source === 'query') {
        deps.logger.warn(
          { event: 'auth.query_token_deprecated', path: ctx.path, client },
          'token passed as ?token= query parameter: deprecated, use Authorization: Bearer',
        );
      }
      await next();
      return;
    }
    deps.throttle.recordFailure(client);
    throw new HookError('UNAUTHORIZED', presented === undefined ? 'missing hook token' : 'invalid hook token', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  };
}
