import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { until } from '../helpers/wait.js';
import { readStatus } from '../../src/commands/status.js';
import { configuredRunLimits } from '../../src/mapping/configured-run-limits.js';
import { budgetRulesOf } from '../../src/runtime/gates/run-limits.js';
import { resolveConfig } from '../../src/config/resolve.js';

/**
 * Run limits on a preset entry, over real sockets: they apply to every mapping of the preset, and a
 * budget or a rate limit is the preset's as a whole ("this preset costs at most N runs an hour"),
 * not one per event type.
 */

const SECRET = 'github-limits-secret-0123456789';
const GATEWAY_TOKEN = 'preset-limits-gateway-token-0123';

const human = { login: 'ada', type: 'User' };
const repository = { full_name: 'acme/api' };
const pullRequest = JSON.stringify({
  action: 'opened',
  number: 7,
  pull_request: { number: 7, title: 'Faster start', draft: false, html_url: 'https://github.com/acme/api/pull/7', user: human, head: { ref: 'fast' }, base: { ref: 'main' } },
  repository,
  sender: human,
});
const issue = JSON.stringify({ action: 'opened', issue: { number: 8, title: 'Crash', html_url: 'https://github.com/acme/api/issues/8', user: human }, repository, sender: human });

let svc: TestService | undefined;
let budgets: ReturnType<typeof budgetRulesOf> = [];
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

async function start(limits: Record<string, unknown>): Promise<TestService> {
  const hooks = { enabled: true, token: TEST_TOKEN, presets: [{ name: 'github', secret: SECRET, debounce: false, ...limits }] };
  const config = resolveConfig({ hooks }, { configDir: process.cwd() });
  budgets = budgetRulesOf(config.agents.defaults.budget, configuredRunLimits(config.hooks));
  svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks });
  return svc;
}

const send = (service: TestService, event: string, body: string) => sendSignedAs(service, 'github', body, { secret: SECRET, headers: { 'x-github-event': event } });

async function runOf(service: TestService, runId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return ((await response.json()) as { run: Record<string, unknown> }).run;
}

describe('run limits on a preset entry', () => {
  it('counts one budget for the whole preset: an issue waits for the budget a pull request used', async () => {
    const service = await start({ budget: { runsPerHour: 1 } });
    const first = await send(service, 'pull_request', pullRequest);
    expect(first.status).toBe(202);
    await until(async () => (await runOf(service, first.body.runId))['status'] === 'ok');
    const second = await send(service, 'issues', issue);
    expect(second.status).toBe(202);
    await until(async () => (await runOf(service, second.body.runId))['waitingFor'] === 'budget');
    expect(await runOf(service, second.body.runId)).toMatchObject({ status: 'queued', waitingFor: 'budget' });

    const port = await service.openPort();
    const status = await readStatus(port, 'test', budgets);
    expect(status.limits.budgets).toEqual([expect.objectContaining({ scope: 'preset:github', window: 'hour', used: 1, limit: 1, remaining: 0 })]);
  });

  it('counts one rate-limit bucket for the whole preset: the issue after the pull request is skipped', async () => {
    const service = await start({ rateLimit: { limit: 1, periodSeconds: 3600, key: '{{repository.full_name}}' } });
    expect((await send(service, 'pull_request', pullRequest)).status).toBe(202);
    const skipped = await send(service, 'issues', issue);
    expect([skipped.status, skipped.body]).toEqual([200, { ok: true, skipped: 'rate-limit' }]);
    const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toContain('hookgate_hook_skipped_total{mapping="preset:github/issues",reason="rate-limit"} 1');
  });
});
