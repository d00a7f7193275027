import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

/**
 * Raising a budget frees the runs waiting for it (docs/run-limits.md): by a live reload of the
 * config file, and by a restart with a raised service budget. The runs held by the old budget
 * start first, in the order they were admitted; a run admitted after the raise does not overtake
 * them. One slot (maxConcurrent 1) makes the start order the claim order, read from run_starts.
 */
const auth = { authorization: `Bearer ${TEST_TOKEN}` };

let svc: TestService | undefined;
let dir: string | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function mapping(runsPerHour: number): Record<string, unknown> {
  return { id: 'm', match: { path: 'm' }, action: 'agent', messageTemplate: 'run {{n}}', budget: { runsPerHour } };
}

async function runOf(service: TestService, runId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.hooksUrl}/runs/${runId}`, { headers: auth });
  return ((await response.json()) as { run: Record<string, unknown> }).run;
}

async function send(service: TestService, path: string, body: Record<string, unknown>): Promise<string> {
  const answer = await post(`${service.hooksUrl}/${path}`, body, auth);
  expect(answer.status).toBe(202);
  return answer.body.runId as string;
}

/** Run ids in the order their starts were counted by a budget scope. */
function startOrder(service: TestService, scope: string): string[] {
  return (service.db.prepare('SELECT run_id FROM run_starts WHERE scope = ? ORDER BY id').all(scope) as Array<{ run_id: string }>).map((row) => row.run_id);
}

/** The first run starts; the next two wait for the budget. */
async function oneRunAndTwoWaiting(service: TestService, path: string, body: (n: number) => Record<string, unknown>): Promise<string[]> {
  const first = await send(service, path, body(1));
  await until(async () => (await runOf(service, first))['status'] === 'ok');
  const waiting = [await send(service, path, body(2)), await send(service, path, body(3))];
  for (const runId of waiting) await until(async () => (await runOf(service, runId))['waitingFor'] === 'budget');
  return [first, ...waiting];
}

describe('raising a budget', () => {
  it('by a live reload of the config file starts the runs it held at once, before a run admitted after the raise', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-budget-reload-'));
    svc = await startTestService({ agents: { defaults: { maxConcurrent: 1 } }, hooks: { mappings: [mapping(1)] } }, { dir, configFile: true });
    const service = svc;
    const held = await oneRunAndTwoWaiting(service, 'm', (n) => ({ n }));
    expect(Date.parse((await runOf(service, held[1] as string))['notBefore'] as string)).toBeGreaterThan(Date.now() + 3_000_000);

    const configPath = join(dir, 'hookgate.json5');
    const raw = JSON.parse(readFileSync(configPath, 'utf8')) as { hooks: { mappings: unknown[] } };
    raw.hooks.mappings = [mapping(10)];
    writeFileSync(configPath, JSON.stringify(raw, null, 2));
    await until(() => service.logs.some((line) => line['event'] === 'config.reloaded'));
    const newer = await send(service, 'm', { n: 4 });

    await until(async () => (await runOf(service, newer))['status'] === 'ok');
    for (const runId of held) expect(await runOf(service, runId)).toMatchObject({ status: 'ok' });
    expect(startOrder(service, 'mapping:m')).toEqual([...held, newer]);
  });

  it('by a restart with a raised service budget starts the runs it held, before a run admitted after the restart', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-budget-restart-'));
    const config = (runsPerHour: number) => ({ agents: { defaults: { maxConcurrent: 1, budget: { runsPerHour } } } });
    svc = await startTestService(config(1), { dir });
    const held = await oneRunAndTwoWaiting(svc, 'agent', (n) => ({ message: `run ${n}` }));
    await svc.close();

    svc = await startTestService(config(10), { dir });
    const service = svc;
    const newer = await send(service, 'agent', { message: 'run 4' });
    await until(async () => (await runOf(service, newer))['status'] === 'ok');
    for (const runId of held) expect(await runOf(service, runId)).toMatchObject({ status: 'ok' });
    expect(startOrder(service, 'service')).toEqual([...held, newer]);
  });
});
