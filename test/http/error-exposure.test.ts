import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { HookError } from '../../src/errors.js';
import { errorResponder } from '../../src/http/errors.js';
import { createLogger } from '../../src/log.js';

const SECRET_DETAIL = 'SQLITE_CORRUPT at /srv/hookgate/data/secret-path.sqlite';

/** A tiny app over a real socket whose routes throw; the log lines are collected to check where the detail went. */
async function serve(): Promise<{ url: string; server: Server; logged: string[] }> {
  const logged: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => logged.push(line) } });
  const app = new Koa();
  app.silent = true;
  app.use(errorResponder(logger));
  app.use((ctx) => {
    if (ctx.path === '/internal') throw new HookError('INTERNAL', SECRET_DETAIL, { retryAfterSeconds: 2 });
    if (ctx.path === '/crash') throw new Error(SECRET_DETAIL);
    throw new HookError('MAPPING_INVALID', 'text required');
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, logged };
}

describe('error responses follow the catalog’s expose flag', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('never show the message of a code the catalog keeps private, but log it', async () => {
    const started = await serve();
    server = started.server;
    const response = await fetch(`${started.url}/internal`, { method: 'POST' });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(JSON.parse(text)).toEqual({ ok: false, error: 'internal error', code: 'INTERNAL' });
    expect(text).not.toContain('secret-path');
    expect(started.logged.join('\n')).toContain('secret-path');
  });

  it('never show the message of an error that is not a HookError', async () => {
    const started = await serve();
    server = started.server;
    const response = await fetch(`${started.url}/crash`, { method: 'POST' });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ ok: false, error: 'internal error', code: 'INTERNAL' });
  });

  it('show the message of an exposed code as it was thrown', async () => {
    const started = await serve();
    server = started.server;
    const response = await fetch(`${started.url}/bad`, { method: 'POST' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ok: false, error: 'text required', code: 'MAPPING_INVALID' });
  });
});
