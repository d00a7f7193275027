import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import { createTokenMatcher, credentialHeaders, extractToken } from '../auth/token.js';
import { beginAuth, tokenRefusal, type AuthGuardDeps } from '../auth/guard.js';

export interface HookAuthDeps extends AuthGuardDeps {
  token: string;
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
  // Not async: it hands on next()'s promise (one async layer fewer for every hook request).
  return (ctx, next) => {
    const attempt = beginAuth(ctx, deps);
    const presented = extractToken(credentialHeaders(ctx.req.rawHeaders), ctx.querystring, { openclawHeader: deps.openclawHeaders === true });
    if (presented !== undefined && matches(presented.value)) {
      attempt.succeeded();
      if (presented.source === 'query') {
        deps.logger.warn(
          { event: 'auth.query_token_deprecated', path: ctx.path, client: attempt.client },
          'token passed as ?token= query parameter: deprecated, use Authorization: Bearer',
        );
      }
      return next();
    }
    return attempt.failed(tokenRefusal('hook token', presented !== undefined));
  };
}
