import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { ConsoleClient, GATEWAY_TOKEN, post, startConsoleService } from './support.js';

describe('console API', () => {
  let svc: TestService;
  let client: ConsoleClient;
  let failedRunId: string;
  beforeAll(async () => {
    svc = await startConsoleService();
    client = await ConsoleClient.login(svc);
    const failed = await post(`${svc.hooksUrl}/agent`, { message: 'SECRET-PAYLOAD-TEXT please fail', name: 'Doomed', model: 'broken/x' });
    failedRunId = failed.body.runId;
    await until(async () => (await client.get(`/api/runs/${failedRunId}`)).body?.run?.status === 'error', 20_000);
  });
  afterAll(async () => {
    await svc.close();
  });

  describe('login', () => {
    it('refuses a wrong token and the hook token with 401, and sets no cookie', async () => {
      for (const token of ['wrong-token', TEST_TOKEN]) {
        const anonymous = new ConsoleClient(`${svc.url}/console`);
        const response = await anonymous.request('POST', '/api/login', { token });
        expect(response.status).toBe(401);
        expect(response.headers.get('set-cookie')).toBeNull();
      }
    });

    it('sets an HttpOnly, SameSite=Strict session cookie scoped to the console path (not Secure over plain http)', async () => {
      const anonymous = new ConsoleClient(`${svc.url}/console`);
      const response = await anonymous.request('POST', '/api/login', { token: GATEWAY_TOKEN });
      const cookie = response.headers.get('set-cookie') ?? '';
      expect(response.status).toBe(200);
      expect(cookie).toMatch(/^hookgate_console=[\w-]{40,};/);
      expect(cookie).toMatch(/; path=\/console/);
      expect(cookie).toMatch(/; httponly/i);
      expect(cookie).toMatch(/; samesite=strict/i);
      expect(cookie).not.toMatch(/; secure/i);
      expect(response.text).not.toContain(GATEWAY_TOKEN);
    });

    it('refuses a login that is not application/json (a cross-site form cannot log anyone in)', async () => {
      const response = await fetch(`${svc.url}/console/api/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ token: GATEWAY_TOKEN }) });
      expect(response.status).toBe(415);
    });

    it('needs a session for every API read', async () => {
      for (const path of ['/api/overview', '/api/requests', '/api/runs', `/api/runs/${failedRunId}`, '/api/main-session', '/api/mappings', '/api/session']) {
        const response = await new ConsoleClient(`${svc.url}/console`).get(path);
        expect(response.status, path).toBe(401);
        expect(response.body.code).toBe('UNAUTHORIZED');
      }
    });

    it('ends the session at logout', async () => {
      const own = await ConsoleClient.login(svc);
      expect((await own.request('POST', '/api/logout', {})).status).toBe(200);
      expect((await own.get('/api/overview')).status).toBe(401);
    });
  });

  describe('CSRF', () => {
    it('refuses a state-changing request without the CSRF token, with a wrong one, or from another origin', async () => {
      const path = `/api/runs/${failedRunId}/retry`;
      expect((await client.request('POST', path, {}, { 'x-csrf-token': '' })).status).toBe(403);
      expect((await client.request('POST', path, {}, { 'x-csrf-token': 'forged' })).body.code).toBe('CSRF_FAILED');
      expect((await client.request('POST', path, {}, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await client.request('POST', '/api/logout', {}, { 'x-csrf-token': 'forged' })).status).toBe(403);
      expect((await client.get(`/api/runs/${failedRunId}`)).body.run.retriedBy).toBeUndefined();
    });
  });

  describe('runs', () => {
    it('filters by status and hook, and pages with a cursor', async () => {
      for (let i = 0; i < 3; i += 1) await post(`${svc.hooksUrl}/greet`, { who: `p${i}` });
      await until(async () => (await client.get('/api/runs?status=ok&hook=greet')).body.runs.length === 3, 20_000);
      const errors = await client.get('/api/runs?status=error');
      expect(errors.body.runs.map((run: any) => run.runId)).toEqual([failedRunId]);
      const first = await client.get('/api/runs?hook=greet&limit=2');
      expect(first.body.runs).toHaveLength(2);
      expect(first.body.next).toBe(first.body.runs[1].runId);
      const second = await client.get(`/api/runs?hook=greet&limit=2&before=${first.body.next}`);
      expect(second.body.runs).toHaveLength(1);
      expect(second.body.next).toBeUndefined();
      const all = [...first.body.runs, ...second.body.runs].map((run: any) => run.runId);
      expect(new Set(all).size).toBe(3);
    });

    it('refuses a bad filter with 400 and a clear message', async () => {
      const response = await client.get('/api/runs?status=bogus');
      expect(response.status).toBe(400);
      expect(response.body.error).toContain('status must be one of');
      expect((await client.get('/api/runs?limit=0')).status).toBe(400);
      expect((await client.get('/api/requests?limit=abc')).status).toBe(400);
    });

    it('retries a failed run with the CSRF token, idempotently', async () => {
      const first = await client.request('POST', `/api/runs/${failedRunId}/retry`, {});
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ ok: true, retryOf: failedRunId, replayed: false });
      const second = await client.request('POST', `/api/runs/${failedRunId}/retry`, {});
      expect(second.body).toMatchObject({ runId: first.body.runId, replayed: true });
      expect((await client.get(`/api/runs/${first.body.runId}`)).body.run.retryOf).toBe(failedRunId);
    });
  });

  describe('requests', () => {
    it('lists hook requests newest first with status, code, mapping and actions, never the payload', async () => {
      await post(`${svc.hooksUrl}/greet`, { who: 'SECRET-PAYLOAD-TEXT' }, { 'idempotency-key': 'key-123', 'x-github-delivery': 'gh-42' });
      await post(`${svc.hooksUrl}/greet`, {}, { authorization: 'Bearer nope' });
      const response = await client.get('/api/requests?limit=2');
      const [refused, accepted] = response.body.requests;
      expect(refused).toMatchObject({ hook: 'greet', status: 401, code: 'UNAUTHORIZED' });
      expect(accepted).toMatchObject({ hook: 'greet', status: 202, idempotencyKey: 'key-123', deliveryId: 'gh-42', mappingIds: ['greeter'] });
      expect(accepted.actions[0]).toMatch(/^agent:/);
      expect(response.body.next).toBe(accepted.seq);
      expect(response.text).not.toContain('SECRET-PAYLOAD-TEXT');
      expect(response.text).not.toContain(TEST_TOKEN);
      const onlyRefused = await client.get('/api/requests?status=refused');
      expect(onlyRefused.body.requests.length).toBeGreaterThan(0);
      expect(onlyRefused.body.requests.every((r: any) => r.status >= 400)).toBe(true);
      await fetch(`${svc.hooksUrl}/runs/${failedRunId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      const all = await client.get('/api/requests?limit=200');
      expect(all.body.requests.some((r: any) => r.method === 'GET')).toBe(false); // run status polls are not hook requests
    });

    it('counts accepted and refused requests per minute on the overview', async () => {
      const overview = await client.get('/api/overview');
      const now = overview.body.perMinute.at(-1);
      expect(now.accepted).toBeGreaterThan(0);
      expect(now.refused['UNAUTHORIZED']).toBeGreaterThan(0);
      expect(overview.body.queues).toMatchObject({ pendingEvents: expect.any(Number) });
      expect(overview.body.store).toEqual({ writable: true });
      expect(overview.body.reload).toMatchObject({ reloadFailed: false, lastError: null, lastSuccessAt: expect.any(String) });
    });
  });

  describe('main session, mappings and playground', () => {
    it('shows run summaries but not the text of wake events', async () => {
      // Earlier tests' runs post summaries that wake the main session now: that heartbeat would consume
      // this wake too. Wait until they are all run and consumed, so nothing else starts a heartbeat.
      await until(async () => {
        const { queues } = (await client.get('/api/overview')).body;
        return queues.pendingEvents === 0 && queues.runs.queued === 0 && queues.runs.running === 0;
      }, 30_000);
      // A marker of its own: heartbeat replies legitimately quote earlier runs' messages (the echo model).
      await post(`${svc.hooksUrl}/wake`, { text: 'WAKE-ONLY-PAYLOAD-TEXT', mode: 'next-heartbeat' });
      const response = await client.get('/api/main-session');
      const wake = response.body.pending.find((event: any) => event.hook === 'wake');
      expect(wake).toMatchObject({ hook: 'wake', mode: 'next-heartbeat' });
      expect(wake.text).toBeUndefined();
      expect(wake.chars).toBeGreaterThan(0);
      expect(response.text).not.toContain('WAKE-ONLY-PAYLOAD-TEXT');
    });

    it('lists mappings with match, templates and recent counts', async () => {
      const response = await client.get('/api/mappings');
      expect(response.body.mappings[0]).toMatchObject({ id: 'greeter', source: 'config', match: { path: 'greet' }, action: 'agent', templates: { messageTemplate: 'Say hi to {{who}}' } });
      expect(response.body.mappings[0].hits).toBeGreaterThan(0);
    });

    it('explains a payload like hookgate try, with the enveloped prompt, and stores nothing', async () => {
      const before = (await client.get('/api/runs?limit=200')).body.runs.length;
      const response = await client.request('POST', '/api/playground', { hook: 'greet', payload: { who: 'Ada' } });
      expect(response.status).toBe(200);
      expect(response.body.explanation.matched).toBe(true);
      expect(response.body.explanation.prompts[0]).toContain('Say hi to Ada');
      expect(response.body.explanation.prompts[0]).toMatch(/<<<EXTERNAL_UNTRUSTED_CONTENT/);
      expect(response.body.text).toContain('greeter');
      expect((await client.get('/api/runs?limit=200')).body.runs.length).toBe(before);
      expect((await client.request('POST', '/api/playground', { hook: 'greet', payload: [] })).status).toBe(400);
    });
  });

  describe('routing', () => {
    it('answers JSON errors: 404 for an unknown API path, 405 with Allow for a wrong method', async () => {
      const unknown = await client.get('/api/nope');
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('NOT_FOUND');
      const wrongMethod = await client.request('PUT', '/api/overview', {});
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.body.code).toBe('METHOD_NOT_ALLOWED');
      expect(wrongMethod.headers.get('allow')).toContain('GET');
      expect(wrongMethod.headers.get('allow')).not.toContain('POST');
    });
  });

  describe('page', () => {
    it('serves the page with a strict CSP, relative asset URLs and no secret', async () => {
      const redirect = await fetch(`${svc.url}/console`, { redirect: 'manual' });
      expect(redirect.status).toBe(308);
      expect(redirect.headers.get('location')).toBe('console/');
      const page = await fetch(`${svc.url}/console/`);
      const html = await page.text();
      expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(html).toContain('src="assets/app.js"');
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).not.toContain(GATEWAY_TOKEN);
      const script = await fetch(`${svc.url}/console/assets/app.js`);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
      expect(await script.text()).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    });
  });
});

describe('console settings', () => {
  it('is off with gateway.console.enabled false', async () => {
    const svc = await startConsoleService({ gateway: { auth: { token: GATEWAY_TOKEN }, console: { enabled: false } } });
    try {
      expect((await fetch(`${svc.url}/console/`)).status).toBe(404);
    } finally {
      await svc.close();
    }
  });

  it('serves on the configured path', async () => {
    const svc = await startConsoleService({ gateway: { auth: { token: GATEWAY_TOKEN }, console: { path: '/ops/ui' } } });
    try {
      expect((await fetch(`${svc.url}/ops/ui/`)).status).toBe(200);
      expect((await fetch(`${svc.url}/console/`)).status).toBe(404);
    } finally {
      await svc.close();
    }
  });

  it('marks the cookie Secure when a trusted proxy says the browser came over https, and only then', async () => {
    const login = (svc: TestService) =>
      fetch(`${svc.url}/console/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' }, body: JSON.stringify({ token: GATEWAY_TOKEN }) });
    const behindProxy = await startConsoleService({ gateway: { auth: { token: GATEWAY_TOKEN }, trustedProxies: ['127.0.0.1'] } });
    const direct = await startConsoleService();
    try {
      expect((await login(behindProxy)).headers.get('set-cookie')).toMatch(/; secure/i);
      expect((await login(direct)).headers.get('set-cookie')).not.toMatch(/; secure/i);
    } finally {
      await behindProxy.close();
      await direct.close();
    }
  });

  it('with showPayloads keeps the payload and headers, credentials redacted', async () => {
    const svc = await startConsoleService({ gateway: { auth: { token: GATEWAY_TOKEN }, console: { showPayloads: true } } });
    try {
      const client = await ConsoleClient.login(svc);
      await post(`${svc.hooksUrl}/greet?api_key=sk-query-SECRET&page=2`, { who: 'Ada', apiKey: 'sk-live-SECRET', nested: { password: 'hunter2' } });
      const response = await client.get('/api/requests');
      // The log keeps no query string at all (its `hook` is the path): a secret parameter never reaches it.
      expect(response.body.requests[0].hook).toBe('greet');
      expect(response.text).not.toContain('sk-query-SECRET');
      expect(response.body.requests[0].payload).toEqual({ who: 'Ada', apiKey: '[redacted]', nested: { password: '[redacted]' } });
      expect(response.body.requests[0].headers.authorization).toBe('[redacted]');
      expect(response.text).not.toContain('sk-live-SECRET');
      expect(response.text).not.toContain(TEST_TOKEN);
    } finally {
      await svc.close();
    }
  });
});
