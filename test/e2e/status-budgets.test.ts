import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';
import { runCaptured } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';

/**
 * `hookgate status` beside a running server whose config file was edited: the budgets it counts
 * against are the ones the server enforces, and the file's other values are what comes after a
 * restart (the service's budget) — never the file's as if already in force.
 */
let svc: TestService | undefined;
let dir: string | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const mapping = (runsPerHour: number) => ({ id: 'm', match: { path: 'm' }, action: 'agent', messageTemplate: 'run {{n}}', budget: { runsPerHour } });

async function runOk(service: TestService, path: string, body: Record<string, unknown>): Promise<void> {
  const answer = await post(`${service.hooksUrl}/${path}`, body);
  expect(answer.status).toBe(202);
  await until(() => service.db.prepare("SELECT count(*) AS n FROM runs WHERE run_id = ? AND status = 'ok'").get(answer.body.runId)?.['n'] === 1);
}

describe('hookgate status after the budgets were edited in the config file', () => {
  it('counts against the budgets in force and says what the file changes after a restart, and a reload has applied a mapping budget', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-status-budgets-'));
    svc = await startTestService({ agents: { defaults: { budget: { runsPerHour: 6 } } }, hooks: { mappings: [mapping(3)] } }, { dir, configFile: true });
    const service = svc;
    await runOk(service, 'm', { n: 1 });

    const configPath = join(dir, 'hookgate.json5');
    const raw = JSON.parse(readFileSync(configPath, 'utf8')) as { agents: { defaults: { budget: { runsPerHour: number } } }; hooks: { mappings: unknown[] } };
    raw.agents.defaults.budget.runsPerHour = 100;
    raw.hooks.mappings = [mapping(5)];
    writeFileSync(configPath, JSON.stringify(raw, null, 2));
    expect(await service.service.reload()).toBe(true);

    const status = await runCaptured(['status', '--config', configPath]);
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    const budgetLines = status.stdout.split('\n').filter((line) => line.startsWith('budget '));
    expect(budgetLines).toEqual([
      'budget service per hour: 1 of 6 used, 5 left; after restart: 100/h',
      // A reload applies a mapping's budget: in force already, nothing to come.
      'budget mapping:m per hour: 1 of 5 used, 4 left',
    ]);
    expect(status.stdout).toMatch(/config reload: ok, .*RESTART NEEDED: agents changed/);

    const json = await runCaptured(['status', '--config', configPath, '--json']);
    const report = JSON.parse(json.stdout) as { limits: { budgets: Array<{ scope: string; limit: number }> }; budgetChanges: unknown[] };
    expect(report.limits.budgets.map((budget) => [budget.scope, budget.limit])).toEqual([
      ['service', 6],
      ['mapping:m', 5],
    ]);
    expect(report.budgetChanges).toEqual([{ scope: 'service', window: 'hour', inForce: 6, next: 100, appliesAt: 'restart' }]);
  });

  it('shows the file\'s budgets once no server runs: they are what the next start enforces', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-status-budgets-'));
    svc = await startTestService({ agents: { defaults: { budget: { runsPerHour: 6 } } } }, { dir, configFile: true });
    await runOk(svc, 'agent', { message: 'one' });
    await svc.close();
    svc = undefined;
    const configPath = join(dir, 'hookgate.json5');
    const raw = JSON.parse(readFileSync(configPath, 'utf8')) as { agents: { defaults: { budget: { runsPerHour: number } } } };
    raw.agents.defaults.budget.runsPerHour = 100;
    writeFileSync(configPath, JSON.stringify(raw, null, 2));

    const status = await runCaptured(['status', '--config', configPath]);
    expect(status.stdout.split('\n').filter((line) => line.startsWith('budget '))).toEqual(['budget service per hour: 1 of 100 used, 99 left']);
  });
});
