import type { Middleware } from 'koa';
import { HookError } from '../errors.js';
import { bearerToken, createTokenMatcher } from '../auth/token.js';
import { beginAuth, tokenRefusal, type AuthGuardDeps } from '../auth/guard.js';
import type { Metrics, RouteLabel } from './metrics.js';
import { errorCodeOfBody } from '../http/errors.js';

/**
 * Counts every answered request by route and final status. It sits outside the error responder,
 * so it sees the status an error became. Responses node:http writes itself (400 for unparseable
 * HTTP, 431 for oversized headers) never reach Koa and are not counted.
 */
export function requestMetrics(metrics: Metrics, hooksPath: string | undefined): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeRequest(routeOf(ctx.method, ctx.path, hooksPath), ctx.status, seconds, ctx.status === 429 ? errorCodeOfBody(ctx.body) : undefined);
    }
  };
}


export function routeOf(method: string, path: string, hooksPath: string | undefined): RouteLabel {
  if (path === '/healthz' || path === '/readyz') return 'health';
  if (path === '/metrics') return 'metrics';
  if (hooksPath === undefined || !(path === hooksPath || path.startsWith(`${hooksPath}/`))) return 'other';
  const name = path.slice(hooksPath.length).replace(/^\/+|\/+$/g, '');
  if (name === '') return 'other';
  if (name === 'wake' || name === 'agent') return name;
  if (name.startsWith('runs/') && (method === 'GET' || method === 'HEAD')) return 'runs';
  return 'mapped';
}

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
