import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { failingProviderConfig } from '../helpers/failing-provider.js';

const GATEWAY_TOKEN = 'gateway-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TEST_TOKEN}` };

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

function sentry(rateLimit: Record<string, unknown>): Record<string, unknown> {
  return { id: 'sentry', match: { path: 'sentry' }, action: 'agent', messageTemplate: 'issue {{issue}}', rateLimit };
}

async function metrics(service: TestService): Promise<string> {
  const response = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` }, signal: AbortSignal.timeout(5000) });
  return response.text();
}

async function runOf(service: TestService, runId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.hooksUrl}/runs/${runId}`, { headers: auth });
  return ((await response.json()) as { run: Record<string, unknown> }).run;
}

const countRuns = (service: TestService): number => (service.db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;

describe('a mapping rate limit', () => {
  it('skips deliveries past the limit per key with 200 skipped, storing nothing, and counts them', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { mappings: [sentry({ limit: 2, periodSeconds: 3600, key: '{{project}}' })] } });
    const service = svc;
    const send = (project: string) => post(`${service.hooksUrl}/sentry`, { project, issue: 1 }, auth);
    expect((await send('a')).status).toBe(202);
    expect((await send('a')).status).toBe(202);
    const third = await send('a');
    expect(third).toMatchObject({ status: 200, body: { ok: true, skipped: 'rate-limit' } });
    expect((await send('b')).status).toBe(202);
    expect(countRuns(service)).toBe(3);
    expect(await metrics(service)).toMatch(/hookgate_hook_skipped_total\{mapping="sentry",reason="rate-limit"\} 1/);
  });

  it('rejects with 429 RATE_LIMITED and Retry-After when over is reject, and stores nothing', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { mappings: [sentry({ limit: 1, periodSeconds: 60, over: 'reject' })] } });
    const service = svc;
    expect((await post(`${service.hooksUrl}/sentry`, { issue: 1 }, auth)).status).toBe(202);
    const refused = await post(`${service.hooksUrl}/sentry`, { issue: 2 }, auth);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ ok: false, code: 'RATE_LIMITED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(countRuns(service)).toBe(1);
    const text = await metrics(service);
    expect(text).toMatch(/hookgate_hook_rejected_total\{mapping="sentry",reason="rate-limit"\} 1/);
    expect(text).not.toMatch(/hookgate_auth_failures_total\{outcome="throttled"\} [1-9]/);
  });

  it('decides deliveries arriving together at commit: exactly `limit` are stored, the rest skipped without keeping their keys', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { mappings: [sentry({ limit: 3, periodSeconds: 3600, key: '{{project}}' })] } });
    const service = svc;
    const send = (i: number) => post(`${service.hooksUrl}/sentry`, { project: 'p', issue: i }, { ...auth, 'idempotency-key': `delivery-${i}` });
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i)));
    expect(replies.filter((reply) => reply.status === 202)).toHaveLength(3);
    const skipped = replies.flatMap((reply, i) => (reply.status === 200 ? [i] : []));
    expect(skipped).toHaveLength(7);
    for (const i of skipped) expect(replies[i]?.body).toEqual({ ok: true, skipped: 'rate-limit' });
    expect(countRuns(service)).toBe(3);
    expect(await metrics(service)).toMatch(/hookgate_hook_skipped_total\{mapping="sentry",reason="rate-limit"\} 7/);
    // A skipped delivery's key was not kept: sent again, it is judged again (not replayed).
    const again = await send(skipped[0] as number);
    expect(again).toMatchObject({ status: 200, body: { ok: true, skipped: 'rate-limit' } });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('rejects every delivery past the limit among many arriving together with 429 and Retry-After', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { mappings: [sentry({ limit: 2, periodSeconds: 60, over: 'reject' })] } });
    const service = svc;
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => post(`${service.hooksUrl}/sentry`, { issue: i }, auth)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([202, 202, 429, 429, 429, 429, 429, 429, 429, 429]);
    for (const reply of replies.filter((r) => r.status === 429)) {
      expect(reply.body).toMatchObject({ ok: false, code: 'RATE_LIMITED' });
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(countRuns(service)).toBe(2);
    expect(await metrics(service)).toMatch(/hookgate_hook_rejected_total\{mapping="sentry",reason="rate-limit"\} 8/);
  });
});

/** One run ran and used the budget (one run a day or an hour); the second waits for it: its id. */
async function runHeldByBudget(service: TestService): Promise<string> {
  const first = await post(`${service.hooksUrl}/agent`, { message: 'one' }, auth);
  await until(async () => (await runOf(service, first.body.runId))['status'] === 'ok');
  const second = await post(`${service.hooksUrl}/agent`, { message: 'two' }, auth);
  await until(async () => (await runOf(service, second.body.runId))['waitingFor'] === 'budget');
  return second.body.runId as string;
}

describe('run limits over HTTP', () => {
  it('shows a run held by the budget as queued, waiting for budget until a time; a forced start runs it', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, agents: { defaults: { budget: { runsPerDay: 1 } } } });
    const service = svc;
    const first = await post(`${service.hooksUrl}/agent`, { message: 'one' }, auth);
    await until(async () => (await runOf(service, first.body.runId))['status'] === 'ok');
    const firstStarted = Date.parse((await runOf(service, first.body.runId))['startedAt'] as string);
    const second = await post(`${service.hooksUrl}/agent`, { message: 'two' }, auth);
    await until(async () => (await runOf(service, second.body.runId))['waitingFor'] === 'budget');
    const waiting = await runOf(service, second.body.runId);
    expect(waiting).toMatchObject({ status: 'queued', waitingFor: 'budget' });
    expect(Date.parse(waiting['notBefore'] as string)).toBe(firstStarted + 24 * 3_600_000);
    const text = await metrics(service);
    expect(text).toMatch(/hookgate_runs_waiting\{reason="budget"\} 1/);
    expect(text).toMatch(/hookgate_budget_remaining\{scope="service",window="day"\} 0/);
    const operator = { authorization: `Bearer ${GATEWAY_TOKEN}` };
    const started = await post(`${service.hooksUrl}/runs/${second.body.runId}/start`, {}, operator);
    expect(started).toMatchObject({ status: 200, body: { ok: true, runId: second.body.runId, forced: true } });
    await until(async () => (await runOf(service, second.body.runId))['status'] === 'ok');
    expect(service.logs.some((line) => line['event'] === 'run.force_started' && line['runId'] === second.body.runId)).toBe(true);
    expect((await post(`${service.hooksUrl}/runs/${second.body.runId}/start`, {}, operator)).body).toMatchObject({ code: 'RUN_NOT_RETRYABLE' });
  });

  it('refuses a forced start with the hook token (403): going past the spend cap is the operator\'s act', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, agents: { defaults: { budget: { runsPerDay: 1 } } } });
    const service = svc;
    const second = await runHeldByBudget(service);
    const start = `${service.hooksUrl}/runs/${second}/start`;
    for (const carried of [auth, { 'x-hookgate-token': TEST_TOKEN, authorization: '' }]) {
      const refused = await post(start, {}, carried);
      expect([refused.status, refused.body]).toEqual([
        403,
        { ok: false, code: 'GATEWAY_TOKEN_REQUIRED', error: 'starting a run past its budget needs the gateway token (gateway.auth.token), not the hook token' },
      ]);
    }
    expect((await post(start, {}, { authorization: 'Bearer not-a-token-at-all' })).status).toBe(401);
    expect(await runOf(service, second)).toMatchObject({ status: 'queued', waitingFor: 'budget' });
    expect(service.logs.some((line) => line['event'] === 'run.force_started')).toBe(false);
  });

  it('answers a forced start 404 to everyone, the hook token included, when no gateway token is configured', async () => {
    svc = await startTestService({ agents: { defaults: { budget: { runsPerDay: 1 } } } });
    const start = `${svc.hooksUrl}/runs/some-run/start`;
    for (const carried of [auth, { authorization: `Bearer ${GATEWAY_TOKEN}` }, {}]) {
      const refused = await post(start, {}, carried);
      expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
      expect(refused.body.error).toContain('gateway.auth.token');
    }
  });

  it('refuses agent admissions with 503 SERVER_BUSY and Retry-After past maxQueued, storing nothing for them', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, agents: { defaults: { maxQueued: 2, budget: { runsPerDay: 1 } } } });
    const service = svc;
    const answers = [];
    for (let i = 0; i < 8; i += 1) answers.push(await post(`${service.hooksUrl}/agent`, { message: `run ${i}` }, auth));
    const refused = answers.filter((answer) => answer.status === 503);
    // One run executes, two may queue: the rest are refused (give or take a commit in flight while the count is read).
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(refused[0]?.body).toMatchObject({ ok: false, code: 'SERVER_BUSY' });
    expect(refused[0]?.headers.get('retry-after')).toBe('30');
    expect(countRuns(service)).toBe(answers.filter((answer) => answer.status === 202).length);
    // Wakes are never refused for the run queue.
    expect((await post(`${service.hooksUrl}/wake`, { text: 'still here' }, auth)).status).toBe(200);
    expect(await metrics(service)).toMatch(/hookgate_hook_rejected_total\{mapping="agent",reason="queue-full"\} [4-8]/);
  });
});

describe('debounce groups and the run queue', () => {
  const debounced = (debounce: Record<string, unknown>): Record<string, unknown> => ({
    id: 'sentry',
    match: { path: 'sentry' },
    action: 'agent',
    deliver: false,
    messageTemplate: 'event {{event}} of issue {{issue}}',
    debounce: { key: '{{issue}}', windowSeconds: 3600, ...debounce },
  });

  it('counts a pending group as a run against maxQueued: a delivery that would open one more is refused with the count, one joining an open group is accepted', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, hooks: { mappings: [debounced({})] }, agents: { defaults: { maxQueued: 3 } } });
    const service = svc;
    const opened = [];
    for (const issue of ['a', 'b', 'c']) opened.push(await post(`${service.hooksUrl}/sentry`, { issue, event: 1 }, auth));
    expect(opened.map((answer) => answer.status)).toEqual([202, 202, 202]);
    const refused = await post(`${service.hooksUrl}/sentry`, { issue: 'd', event: 1 }, auth);
    expect(refused).toMatchObject({ status: 503, body: { ok: false, code: 'SERVER_BUSY', error: '3 runs are queued or waiting in debounce groups (agents.defaults.maxQueued is 3); retry later' } });
    expect(refused.headers.get('retry-after')).toBe('30');
    const joined = await post(`${service.hooksUrl}/sentry`, { issue: 'a', event: 2 }, auth);
    expect(joined).toMatchObject({ status: 202, body: { ok: true, runId: opened[0]?.body.runId, debounced: true } });
    expect(service.db.prepare('SELECT COUNT(*) AS n FROM debounce_groups').get()).toEqual({ n: 3 });
    expect(await metrics(service)).toMatch(/hookgate_hook_rejected_total\{mapping="sentry",reason="queue-full"\} 1\b/);
  });

  it('closes a keep "all" group at maxDeliveries: it fires at once with every delivery it holds, and the next delivery opens a new group', async () => {
    svc = await startTestService({ hooks: { mappings: [debounced({ keep: 'all', maxDeliveries: 2 })] } });
    const service = svc;
    const answers = [];
    for (const event of [1, 2, 3]) answers.push(await post(`${service.hooksUrl}/sentry`, { issue: 'a', event }, auth));
    const [first, second, third] = answers.map((answer) => String(answer.body.runId));
    expect(second).toBe(first);
    expect(third).not.toBe(first);
    const storedAction = (): string | undefined => (service.db.prepare('SELECT action FROM runs WHERE run_id = ?').get(first ?? '') as { action: string } | undefined)?.action;
    await until(() => storedAction() !== undefined);
    const action = storedAction() as string;
    const message = (JSON.parse(action) as { message: string }).message;
    expect(message).toContain('event 1 of issue a');
    expect(message).toContain('event 2 of issue a');
    expect(message).not.toContain('event 3');
    expect(await runOf(service, third ?? '')).toMatchObject({ status: 'pending', deliveries: 1 });
  });
});

describe('the provider circuit over HTTP', () => {
  it('opens after consecutive failures: later runs wait for the circuit, the gauge says open, and one alert goes to the channel', async () => {
    const failing = failingProviderConfig();
    svc = await startTestService({
      ...failing,
      gateway: { auth: { token: GATEWAY_TOKEN } },
      agents: { defaults: { delivery: { channel: 'log' }, maxConcurrent: 1, circuitBreaker: { failures: 2, openSeconds: 3600 }, alerts: { channel: 'log', to: 'ops' } } },
    });
    const service = svc;
    const runs: string[] = [];
    for (let i = 0; i < 3; i += 1) runs.push((await post(`${service.hooksUrl}/agent`, { message: `m${i}`, model: 'broken/x' }, auth)).body.runId as string);
    await until(async () => (await runOf(service, runs[2] as string))['waitingFor'] === 'provider-circuit');
    expect((await runOf(service, runs[0] as string))['status']).toBe('error');
    expect((await runOf(service, runs[1] as string))['status']).toBe('error');
    expect(await metrics(service)).toMatch(/hookgate_provider_circuit_state\{provider="broken"\} 2/);
    await until(() => service.logs.some((line) => line['event'] === 'alert.sent' && line['condition'] === 'circuit-open:broken'));
    expect(service.logs.filter((line) => line['event'] === 'alert.sent')).toHaveLength(1);
    expect(service.logs.some((line) => line['event'] === 'circuit.opened' && line['provider'] === 'broken')).toBe(true);
    // Other providers are not held: an echo run still runs.
    const echo = await post(`${service.hooksUrl}/agent`, { message: 'fine' }, auth);
    await until(async () => (await runOf(service, echo.body.runId))['status'] === 'ok');
  });
});

describe('hookgate runs start --force and hookgate status', () => {
  function cliIo(dir: string) {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s), env: {}, cwd: dir } };
  }

  it('starts a waiting run through the service with the gateway token, insists on --force, and status shows the waits and budgets', async () => {
    svc = await startTestService({ gateway: { auth: { token: GATEWAY_TOKEN } }, agents: { defaults: { budget: { runsPerHour: 1 } } } });
    const service = svc;
    const second = await runHeldByBudget(service);
    const configPath = join(service.dir, 'cli.json5');
    const cliConfig = (gateway: object) => ({ gateway, hooks: { enabled: true, token: TEST_TOKEN }, agents: { defaults: { budget: { runsPerHour: 1 } } }, storage: { path: join(service.dir, 'hookgate.sqlite') } });
    writeFileSync(configPath, JSON.stringify(cliConfig({ auth: { token: GATEWAY_TOKEN } })));

    const status = cliIo(service.dir);
    expect(await runCli(['status', '--config', configPath], status.io)).toBe(0);
    expect(status.out.join('')).toContain('runs waiting: 1 for budget');
    expect(status.out.join('')).toContain('budget service per hour: 1 of 1 used, 0 left');

    const refused = cliIo(service.dir);
    expect(await runCli(['runs', 'start', second, '--config', configPath, '--url', service.url], refused.io)).toBe(2);
    expect(refused.err.join('')).toContain('needs --force');
    // Without the gateway token the running service cannot be asked, and the store is not written behind its back.
    const tokenless = join(service.dir, 'cli-tokenless.json5');
    writeFileSync(tokenless, JSON.stringify(cliConfig({})));
    const noToken = cliIo(service.dir);
    expect(await runCli(['runs', 'start', second, '--force', '--config', tokenless, '--url', service.url], noToken.io)).toBe(1);
    expect(noToken.err.join('')).toContain('needs gateway.auth.token');
    // The console is no way out: it logs in with that same token.
    expect(noToken.err.join('')).not.toContain('use the console');
    expect(noToken.err.join('')).toContain('stop the service and run this again');
    expect((await runOf(service, second))['waitingFor']).toBe('budget');
    const started = cliIo(service.dir);
    expect(await runCli(['runs', 'start', second, '--force', '--config', configPath, '--url', service.url], started.io)).toBe(0);
    expect(started.err.join('')).toBe('');
    expect(started.out.join('')).toContain(`run ${second} may start past its budget`);
    await until(async () => (await runOf(service, second))['status'] === 'ok');
  });
});
