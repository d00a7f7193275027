import type { Context, Middleware } from 'koa';
import { HookError } from '../errors.js';
import { bearerToken, createTokenMatcher } from '../auth/token.js';
import { beginAuth, tokenRefusal, type AuthGuardDeps } from '../auth/guard.js';
import type { TokenPresence } from './auth.js';

export interface OperatorAuthDeps extends AuthGuardDeps {
  /** gateway.auth.token; without one the route does not exist (404), as /metrics. */
  gatewayToken: string | undefined;
  /** How the request carries the hook token (hookTokenCheck). */
  hookTokenOf: (ctx: Context, client: string) => TokenPresence;
  /** What the route does, as the refusals name it: "starting a run past its budget". */
  act: string;
}

/**
 * For a route on the hooks path that only the operator may call (POST {hooks.path}/runs/<id>/start
 * lets a run past the operator's spend cap): the gateway token as a Bearer token, never the hook
 * token, which every integration holds. The hook token gets 403 GATEWAY_TOKEN_REQUIRED and is not
 * counted as a failed attempt (its holder is no guesser); any other credential counts in the
 * throttle like a wrong token. Without gateway.auth.token the route does not exist: 404 to every
 * request, whatever it carries.
 */
export function operatorAuth(deps: OperatorAuthDeps): Middleware {
  const matches = deps.gatewayToken === undefined ? undefined : createTokenMatcher(deps.gatewayToken);
  return (ctx, next) => {
    if (matches === undefined) throw new HookError('NOT_FOUND', `${deps.act} through the API needs gateway.auth.token, which is not set`);
    const attempt = beginAuth(ctx, deps);
    if (deps.hookTokenOf(ctx, attempt.client) === 'valid') {
      throw new HookError('GATEWAY_TOKEN_REQUIRED', `${deps.act} needs the gateway token (gateway.auth.token), not the hook token`);
    }
    const bearer = bearerToken(ctx.req.headersDistinct);
    if (bearer !== undefined && matches(bearer)) {
      attempt.succeeded();
      return next();
    }
    return attempt.failed(tokenRefusal('gateway token', bearer !== undefined));
  };
}
