import type { Context, Middleware } from 'koa';
import type { Logger } from '../log.js';
import { createTokenMatcher, credentialHeaders, extractToken } from '../auth/token.js';
import { beginAuth, tokenRefusal, type AuthGuardDeps } from '../auth/guard.js';

export interface HookTokenDeps {
  token: string;
  logger: Logger;
  /** hooks.compat.openclawHeaders. */
  openclawHeaders?: boolean;
}

export interface HookAuthDeps extends AuthGuardDeps, HookTokenDeps {}

/** How a request carries the hook token: not at all, or a value that does or does not match. */
export type TokenPresence = 'missing' | 'invalid' | 'valid';

/**
 * Compares the hook token a request carries (timing-safe), warning once per request that used the
 * deprecated `?token=`. The throttle is the caller's: this only says what the request presented.
 */
export function hookTokenCheck(deps: HookTokenDeps): (ctx: Context, client: string) => TokenPresence {
  const matches = createTokenMatcher(deps.token);
  return (ctx, client) => {
    const presented = extractToken(credentialHeaders(ctx.req.rawHeaders), ctx.querystring, { openclawHeader: deps.openclawHeaders === true });
    if (presented === undefined) return 'missing';
    if (!matches(presented.value)) return 'invalid';
    if (presented.source === 'query') {
      deps.logger.warn(
        { event: 'auth.query_token_deprecated', path: ctx.path, client },
        'token passed as ?token= query parameter: deprecated, use Authorization: Bearer',
      );
    }
    return 'valid';
  };
}

/**
 * Token check with failed-auth throttling. A blocked client is refused (429) before its token is
 * looked at, so even the right token gets 429 while the block lasts: the throttle answers the same
 * whatever a guess carries. A success clears only the failures of a client that was never blocked.
 */
export function hookAuth(deps: HookAuthDeps): Middleware {
  const check = hookTokenCheck(deps);
  // Not async: it hands on next()'s promise (one async layer fewer for every hook request).
  return (ctx, next) => {
    const attempt = beginAuth(ctx, deps);
    const presence = check(ctx, attempt.client);
    if (presence === 'valid') {
      attempt.succeeded();
      return next();
    }
    return attempt.failed(tokenRefusal('hook token', presence === 'invalid'));
  };
}
