import type { Middleware } from 'koa';
import type { Metrics, RouteLabel } from '../metrics/metrics.js';
import { errorCodeOfBody } from './errors.js';

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

/** The route label of a request: a fixed set, never the raw path. */
export function routeOf(method: string, path: string, hooksPath: string | undefined): RouteLabel {
  if (path === '/healthz' || path === '/readyz') return 'health';
  if (path === '/metrics') return 'metrics';
  if (hooksPath === undefined || !(path === hooksPath || path.startsWith(`${hooksPath}/`))) return 'other';
  const name = path.slice(hooksPath.length).replace(/^\/+|\/+$/g, '');
  if (name === '') return 'other';
  if (name === 'wake' || name === 'agent') return name;
  if (name.startsWith('runs/') && (method === 'GET' || method === 'HEAD')) return 'runs';
  // A relay pull is a long poll: counted apart, so it never stretches the hooks' latencies.
  if (/^relay\/[^/]+\/(events|ack)$/.test(name) && (method === 'GET' || method === 'POST')) return 'relay';
  return 'mapped';
}
