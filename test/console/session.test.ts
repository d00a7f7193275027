import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleSessions } from '../../src/console/session.js';
import { errorResponder } from '../../src/http/errors.js';
import { silentLogger } from '../../src/log.js';

/** A tiny app over a real socket: /login sets a session, /read needs one, /write needs one and its CSRF token. */
async function serve(now: () => number): Promise<{ url: string; server: Server }> {
  const sessions = createConsoleSessions({ gatewayToken: 'the-gateway-token', path: '/', ttlMs: 60_000, isHttps: () => false, now });
  const app = new Koa();
  app.use(errorResponder(silentLogger()));
  app.use(async (ctx) => {
    if (ctx.path === '/login') ctx.body = { csrf: sessions.login(ctx, ctx.get('x-token')) };
    else if (ctx.path === '/read') ctx.body = { ok: sessions.require(ctx) !== '' };
    else if (ctx.path === '/write') (sessions.requireWithCsrf(ctx), (ctx.body = { ok: true }));
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('console sessions', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('expire after their lifetime (injected clock)', async () => {
    let clock = 1_000;
    const started = await serve(() => clock);
    server = started.server;
    const login = await fetch(`${started.url}/login`, { headers: { 'x-token': 'the-gateway-token' } });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect((await fetch(`${started.url}/read`, { headers: { cookie } })).status).toBe(200);
    clock += 60_001;
    expect((await fetch(`${started.url}/read`, { headers: { cookie } })).status).toBe(401);
  });

  it('accept a state change only with the session CSRF token, not another session\'s', async () => {
    const started = await serve(() => 0);
    server = started.server;
    const first = await fetch(`${started.url}/login`, { headers: { 'x-token': 'the-gateway-token' } });
    const second = await fetch(`${started.url}/login`, { headers: { 'x-token': 'the-gateway-token' } });
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const own = ((await first.json()) as { csrf: string }).csrf;
    const other = ((await second.json()) as { csrf: string }).csrf;
    expect((await fetch(`${started.url}/write`, { headers: { cookie, 'x-csrf-token': other } })).status).toBe(403);
    expect((await fetch(`${started.url}/write`, { headers: { cookie, 'x-csrf-token': own } })).status).toBe(200);
  });
});
