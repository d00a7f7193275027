import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.js';
import { post, startTestService, type TestService } from '../helpers/service.js';
import { startFakeService, type FakeService } from '../channels/fake-service.js';

const ADMIN = 'admin-token-for-metrics-42';
const TRANSFORMS = fileURLToPath(new URL('../../transforms', import.meta.url));

async function scrape(svc: TestService): Promise<string> {
  const response = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  expect(response.status).toBe(200);
  return response.text();
}


describe('metrics reported by the sandbox and the runtime', () => {
  let svc: TestService;
  let telegram: FakeService | undefined;
  afterEach(async () => {
    await svc.close();
    await telegram?.close();
  });

  it('counts transform calls by module, finished runs by status and failed deliveries by channel', async () => {
    // Telegram refuses the bot token: a permanent failure, counted once, without retries.
    telegram = await startFakeService(() => ({ status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } }));
    svc = await startTestService({
      gateway: { auth: { token: ADMIN } },
      channels: { telegram: { botToken: 'refused-token', baseUrl: telegram.baseUrl } },
      hooks: { transformsDir: TRANSFORMS, mappings: [{ id: 'gh', match: { path: 'github' }, transform: { module: 'github-issue.js' }, channel: 'telegram', to: '42' }] },
    });
    const payload = {
      action: 'opened',
      issue: { title: 'Crash', html_url: 'https://github.com/o/r/issues/1', user: { login: 'ann' } },
      repository: { full_name: 'o/r' },
      sender: { login: 'ann', type: 'User' },
    };
    expect((await post(`${svc.hooksUrl}/github`, payload, { 'x-github-event': 'issues' })).status).toBe(202);
    await until(async () => (await scrape(svc)).includes('hookgate_delivery_failures_total{channel="telegram"} 1'));
    const text = await scrape(svc);
    expect(text).toMatch(/hookgate_transform_duration_seconds_count\{module="github-issue\.js",outcome="ok"\} 1/);
    expect(text).toMatch(/hookgate_runs_finished_total\{status="ok"\} 1/);
  });
});
