import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { failingProviderConfig as retryTestConfig } from '../helpers/failing-provider.js';

async function runOf(svc: TestService, runId: string): Promise<any> {
  const response = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return ((await response.json()) as any).run;
}

async function finished(svc: TestService, runId: string): Promise<any> {
  let run: any;
  await until(async () => {
    run = await runOf(svc, runId);
    return run !== undefined && run.status !== 'queued' && run.status !== 'running';
  }, 20_000);
  return run;
}

function retry(svc: TestService, runId: string, token = TEST_TOKEN) {
  return post(`${svc.hooksUrl}/runs/${runId}/retry`, {}, { authorization: `Bearer ${token}` });
}

describe('retrying a run', () => {
  let svc: TestService;
  let failedRunId: string;
  beforeAll(async () => {
    svc = await startTestService(retryTestConfig());
    const { body } = await post(`${svc.hooksUrl}/agent`, { message: 'please fail', name: 'Doomed', model: 'broken/x' });
    failedRunId = body.runId;
    expect((await finished(svc, failedRunId)).status).toBe('error');
  });
  afterAll(async () => {
    await svc.close();
  });

  it('queues a failed run again as a new run linked to the first, with the same action', async () => {
    const first = await retry(svc, failedRunId);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ ok: true, retryOf: failedRunId, replayed: false });
    expect(first.body.runId).not.toBe(failedRunId);
    const again = await finished(svc, first.body.runId);
    expect(again).toMatchObject({ retryOf: failedRunId, name: 'Doomed', hook: 'agent', status: 'error', attempts: 1 });
    expect((await runOf(svc, failedRunId)).retriedBy).toBe(first.body.runId);
  });

  it('answers a second retry of the same run with the first retry, writing nothing', async () => {
    const first = await retry(svc, failedRunId);
    const second = await retry(svc, failedRunId);
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ runId: first.body.runId, retryOf: failedRunId, replayed: true });
    const count = svc.db.prepare('SELECT COUNT(*) AS n FROM runs WHERE retry_of = ?').get(failedRunId) as { n: number };
    expect(count.n).toBe(1);
  });

  it('refuses to retry a run that ended ok with 409 RUN_NOT_RETRYABLE', async () => {
    const { body } = await post(`${svc.hooksUrl}/agent`, { message: 'fine' });
    expect((await finished(svc, body.runId)).status).toBe('ok');
    const refused = await retry(svc, body.runId);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ ok: false, code: 'RUN_NOT_RETRYABLE' });
    expect(refused.body.error).toContain('run is ok');
  });

  it('answers 404 for an unknown run and 401 without the hook token', async () => {
    expect((await retry(svc, 'no-such-run')).status).toBe(404);
    expect((await retry(svc, failedRunId, 'wrong-token-0123456789')).status).toBe(401);
  });

  it('hookgate runs retry asks the running service and prints the retry', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const configPath = join(svc.dir, 'runs-cli.json5');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(configPath, JSON.stringify({ ...retryTestConfig(), hooks: { enabled: true, token: TEST_TOKEN }, storage: { path: join(svc.dir, 'hookgate.sqlite') } }));
    const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s), env: {}, cwd: svc.dir };
    const code = await runCli(['runs', 'retry', failedRunId, '--config', configPath, '--url', svc.url, '--json'], io);
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    const printed = JSON.parse(out.join('')) as { runId: string; retryOf: string };
    expect(printed.retryOf).toBe(failedRunId);
    expect((await runOf(svc, failedRunId)).retriedBy).toBe(printed.runId);
  });
});

describe('hookgate runs retry with a server started on another port than the config says', () => {
  it('finds the server through the state file next to the store and retries through it', async () => {
    const svc = await startTestService(retryTestConfig());
    try {
      const { body } = await post(`${svc.hooksUrl}/agent`, { message: 'please fail', model: 'broken/x' });
      expect((await finished(svc, body.runId)).status).toBe('error');
      const { writeFileSync, existsSync } = await import('node:fs');
      const store = join(svc.dir, 'hookgate.sqlite');
      expect(existsSync(`${store}.server.json`)).toBe(true);
      const configPath = join(svc.dir, 'default-port.json5');
      // gateway.port is the default 8787, not the port the service listens on
      writeFileSync(configPath, JSON.stringify({ hooks: { enabled: true, token: TEST_TOKEN }, storage: { path: store } }));
      const out: string[] = [];
      const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void out.push(s), env: {}, cwd: svc.dir };
      expect(await runCli(['runs', 'retry', body.runId, '--config', configPath, '--json'], io)).toBe(0);
      const printed = JSON.parse(out.join('')) as { runId: string };
      expect(svc.logs.filter((line) => line['event'] === 'run.retry_queued').map((line) => line['runId'])).toEqual([printed.runId]);
      await svc.service.close();
      expect(existsSync(`${store}.server.json`)).toBe(false);
    } finally {
      await svc.close();
    }
  });
});

describe('hookgate runs retry without a running service', () => {
  it('writes the retry into the store, and refuses an ok run with a clear message', async () => {
    const svc = await startTestService(retryTestConfig());
    const { body } = await post(`${svc.hooksUrl}/agent`, { message: 'please fail', model: 'broken/x' });
    expect((await finished(svc, body.runId)).status).toBe('error');
    const { body: ok } = await post(`${svc.hooksUrl}/agent`, { message: 'fine' });
    expect((await finished(svc, ok.runId)).status).toBe('ok');
    const store = join(svc.dir, 'hookgate.sqlite');
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const keep = mkdtempSync(join(tmpdir(), 'hookgate-runs-'));
    try {
      await svc.service.close();
      const configPath = join(keep, 'c.json5');
      // the closed service's port: nothing listens there now, so the CLI falls back to the store
      writeFileSync(configPath, JSON.stringify({ gateway: { port: Number(new URL(svc.url).port) }, hooks: { enabled: true, token: TEST_TOKEN }, storage: { path: store } }));
      const out: string[] = [];
      const err: string[] = [];
      const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s), env: {}, cwd: keep };
      const code = await runCli(['runs', 'retry', body.runId, '--config', configPath], io);
      expect(err.join('')).toBe('');
      expect(code).toBe(0);
      expect(out.join('')).toMatch(/^queued retry \S+ \(retry of /);
      // Picked up when a server starts on that store.
      const queued = /^queued retry (\S+)/.exec(out.join(''))?.[1] ?? '';
      const restarted = await startTestService(retryTestConfig(), { dir: svc.dir });
      try {
        expect(await finished(restarted, queued)).toMatchObject({ retryOf: body.runId, status: 'error', attempts: 1 });
      } finally {
        await restarted.service.close();
      }
      expect(await runCli(['runs', 'retry', ok.runId, '--config', configPath], io)).toBe(1);
      expect(err.join('')).toContain('run is ok');
      expect(await runCli(['runs', 'retry'], io)).toBe(2);
      expect(err.join('')).toContain('a run id is required');
      expect(await runCli(['runs', 'retry', ok.runId, '--bogus'], io)).toBe(2);
      expect(await runCli(['runs', '--help'], io)).toBe(0);
      expect(out.join('')).toContain('usage: hookgate runs retry <runId>');
    } finally {
      await svc.close();
      rmSync(keep, { recursive: true, force: true });
    }
  });
});
