import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { HookError } from '../errors.js';
import { beginAuth, type AuthGuardDeps } from '../auth/guard.js';
import { jsonBodyReader } from '../http/body.js';
import { mountApi } from './api.js';
import type { ConsoleAssets } from './assets.js';
import type { ConsolePorts } from './ports.js';
import { createConsoleSessions, requireSameOrigin } from './session.js';

export interface ConsoleOptions extends AuthGuardDeps {
  /** gateway.console.path, e.g. `/console`. */
  path: string;
  gatewayToken: string;
  sessionMinutes: number;
  showPayloads: boolean;
  assets: ConsoleAssets;
  ports: ConsolePorts;
  /** Whether the direct peer is a trusted proxy (gateway.trustedProxies), whose X-Forwarded-Proto is believed. */
  trustedPeer: (peer: string | undefined) => boolean;
  now?: () => number;
}

/** No inline script or style, nothing from another origin, no framing, no plugin, forms only to us. */
const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const BODY_LIMITS = { maxBodyBytes: 262_144, bodyTimeoutMs: 10_000, maxJsonDepth: 64 };

/**
 * The console: one page (client-side routes after `#`), its two assets and the JSON API, all under
 * one path and behind gateway.auth.token. Every URL the page uses is relative, so it works on
 * loopback and behind a proxy that keeps the path.
 */
export function consoleMiddleware(options: ConsoleOptions): Middleware {
  const base = options.path;
  const now = options.now ?? Date.now;
  const isHttps = (ctx: Context) =>
    ctx.secure || (options.trustedPeer(ctx.req.socket.remoteAddress) && ctx.get('x-forwarded-proto').split(',')[0]?.trim().toLowerCase() === 'https');
  const sessions = createConsoleSessions({ gatewayToken: options.gatewayToken, path: base, ttlMs: options.sessionMinutes * 60_000, isHttps, now });
  const router = new Router({ sensitive: true, strict: true });
  const body = jsonBodyReader(BODY_LIMITS);
  // `/console` → `console/`: the page lives at a path ending in a slash so its relative URLs resolve under it.
  router.get(base, (ctx) => {
    ctx.status = 308;
    ctx.set('Location', `${base.slice(base.lastIndexOf('/') + 1)}/`);
  });
  router.get(`${base}/`, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get(`${base}/assets/app.js`, (ctx) => asset(ctx, 'text/javascript; charset=utf-8', options.assets.js));
  router.get(`${base}/assets/app.css`, (ctx) => asset(ctx, 'text/css; charset=utf-8', options.assets.css));
  router.post(`${base}/api/login`, strictJson, body, (ctx) => login(ctx, options, sessions));
  router.post(`${base}/api/logout`, (ctx) => {
    sessions.requireWithCsrf(ctx);
    sessions.logout(ctx);
    ctx.body = { ok: true };
  });
  mountApi(router, `${base}/api`, { ports: options.ports, sessions, showPayloads: options.showPayloads, now, jsonBody: [strictJson, body] });
  // Typed for a bare Koa context: the router adds its own fields to the context it is given.
  const routes = router.routes() as unknown as Middleware;
  const methods = router.allowedMethods() as unknown as Middleware;
  return async (ctx, next) => {
    if (!(ctx.path === base || ctx.path.startsWith(`${base}/`))) return next();
    setSecurityHeaders(ctx);
    await routes(ctx, async () => methods(ctx, async () => undefined));
    if (ctx.status === 405) {
      throw new HookError('METHOD_NOT_ALLOWED', `${ctx.method} not allowed here`, { headers: { Allow: ctx.response.get('Allow') } });
    }
    if (ctx.body == null && ctx.status === 404) throw new HookError('NOT_FOUND', 'not found');
  };
}

function login(ctx: Context, options: ConsoleOptions, sessions: ReturnType<typeof createConsoleSessions>): void {
  requireSameOrigin(ctx);
  const attempt = beginAuth(ctx, options);
  const token = (ctx.state['payload'] as { token?: unknown }).token;
  let csrf: string;
  try {
    csrf = sessions.login(ctx, typeof token === 'string' ? token : '');
  } catch (error) {
    return attempt.failed(error);
  }
  attempt.succeeded();
  ctx.body = { ok: true, csrf };
}

/** A cross-site form can post text/plain or a form, never application/json without a CORS preflight. */
const strictJson: Middleware = async (ctx, next) => {
  if (!ctx.is('application/json')) throw new HookError('UNSUPPORTED_MEDIA_TYPE', 'console requests must be application/json', { closeConnection: true });
  await next();
};

function asset(ctx: Context, type: string, content: string): void {
  ctx.type = type;
  ctx.set('Cache-Control', 'no-cache');
  ctx.body = content;
}

function setSecurityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hookgate console</title>
<link rel="stylesheet" href="assets/app.css">
<script type="module" src="assets/app.js"></script>
</head>
<body>
<div id="app"><noscript>The Hookgate console needs JavaScript.</noscript></div>
</body>
</html>
`;
