import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { ConsoleClient, post, startConsoleService } from './support.js';

describe('the console and run limits', () => {
  let svc: TestService;
  let client: ConsoleClient;
  beforeAll(async () => {
    svc = await startConsoleService({ agents: { defaults: { delivery: { channel: 'log' }, budget: { runsPerHour: 1 } } } });
    client = await ConsoleClient.login(svc);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('shows waits and budgets on the overview, the wait on a run, and starts it by hand with its CSRF token', async () => {
    const first = await post(`${svc.hooksUrl}/agent`, { message: 'one' });
    await until(async () => (await client.get(`/api/runs/${first.body.runId}`)).body?.run?.status === 'ok');
    const second = await post(`${svc.hooksUrl}/agent`, { message: 'two' });
    await until(async () => (await client.get(`/api/runs/${second.body.runId}`)).body?.run?.waitingFor === 'budget');
    const overview = (await client.get('/api/overview')).body;
    expect(overview.limits).toMatchObject({ waiting: { budget: 1 }, budgets: [{ scope: 'service', window: 'hour', limit: 1, used: 1, remaining: 0 }], circuits: [] });
    expect((await client.get(`/api/runs/${second.body.runId}`)).body.run.notBefore).toEqual(expect.any(String));

    const withoutCsrf = await new ConsoleClient(client.base).request('POST', `/api/runs/${second.body.runId}/start`, {});
    expect(withoutCsrf.status).toBe(401);
    const started = await client.request('POST', `/api/runs/${second.body.runId}/start`, {});
    expect(started.body).toMatchObject({ ok: true, runId: second.body.runId, forced: true });
    await until(async () => (await client.get(`/api/runs/${second.body.runId}`)).body?.run?.status === 'ok');
    expect(svc.logs.some((line) => line['event'] === 'run.force_started' && line['by'] === 'console')).toBe(true);
  });
});
