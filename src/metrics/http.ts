import type { Middleware } from 'koa';
import { HookError } from '../errors.js';
import { bearerToken, createTokenMatcher } from '../auth/token.js';
import { beginAuth, tokenRefusal, type AuthGuardDeps } from '../auth/guard.js';
import type { Metrics } from './metrics.js';

export interface MetricsEndpointDeps extends AuthGuardDeps {
  metrics: Metrics;
  /** gateway.auth.token; without one the endpoint does not exist (404). */
  token: string | undefined;
}

/**
 * GET /metrics behind the service's own token (Bearer only: a scraper can always send a header,
 * and a query token would end up in proxy logs). Failed attempts count towards the same per-client
 * throttle as the hooks. The output holds counts only: no tokens, payloads or raw paths.
 */
export function metricsEndpoint(deps: MetricsEndpointDeps): Middleware {
  const matches = deps.token === undefined ? undefined : createTokenMatcher(deps.token);
  return async (ctx) => {
    if (matches === undefined) throw new HookError('NOT_FOUND', 'not found');
    const attempt = beginAuth(ctx, deps);
    const bearer = bearerToken(ctx.req.headersDistinct);
    if (bearer !== undefined && matches(bearer)) {
      attempt.succeeded();
      ctx.set('Cache-Control', 'no-store');
      ctx.type = deps.metrics.contentType;
      ctx.body = await deps.metrics.render();
      return;
    }
    attempt.failed(tokenRefusal('token', bearer !== undefined));
  };
}
