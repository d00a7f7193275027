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
}

/** Token check with failed-auth throttling; a valid token passes even a blocked client and clears it. */
export function hookAuth(deps: HookAuthDeps): Middleware {
  const matches = createTokenMatcher(deps.token);
  return async (ctx, next) => {
    const client = deps.clientAddress(ctx.req.socket.remoteAddress, ctx.req.headers['x-forwarded-for']);
    ctx.state['client'] = client;
    const presented = extractToken(ctx.req.headers, ctx.querystring);
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
    const wait = deps.throttle.blockedFor(client);
    if (wait !== undefined) {
      throw new HookError('TOO_MANY_AUTH_FAILURES', 'too many failed authentication attempts', { retryAfterSeconds: wait });
    }
    deps.throttle.recordFailure(client);
    throw new HookError('UNAUTHORIZED', presented === undefined ? 'missing hook token' : 'invalid hook token', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  };
}
