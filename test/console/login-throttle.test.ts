import { afterEach, describe, expect, it } from 'vitest';
import { post, type TestService } from '../helpers/service.js';
import { ConsoleClient, GATEWAY_TOKEN, startConsoleService } from './support.js';

describe('console login and the failed-auth throttle', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('counts wrong logins like wrong hook tokens: once blocked, the right token gets 429 on the console and on the hooks', async () => {
    svc = await startConsoleService({ hooks: { throttle: { maxFailures: 2, windowSeconds: 60 } } });
    const client = new ConsoleClient(`${svc.url}/console`);
    expect((await client.request('POST', '/api/login', { token: 'wrong-1' })).status).toBe(401);
    expect((await client.request('POST', '/api/login', { token: 'wrong-2' })).status).toBe(401);

    const login = await client.request('POST', '/api/login', { token: GATEWAY_TOKEN });
    expect(login.status).toBe(429);
    expect(login.body).toMatchObject({ ok: false, code: 'TOO_MANY_AUTH_FAILURES' });
    expect(Number(login.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(client.cookie).toBe('');

    const hook = await post(`${svc.hooksUrl}/wake`, { text: 'x' });
    expect(hook.status).toBe(429);
  });
});
