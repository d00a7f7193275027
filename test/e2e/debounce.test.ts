import { createHmac, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { spawnServer } from '../helpers/process.js';
import { scratchServers } from '../helpers/scratch-servers.js';
import { until } from '../helpers/wait.js';

/**
 * Durable debounce over real sockets and a real process: a burst of signed GitHub deliveries for
 * one pull request becomes one agent run, also when the process is killed mid-window.
 */

const TOKEN = 'debounce-e2e-token-1234';
const SECRET = 'gh-debounce-secret';
const GATEWAY_TOKEN = 'debounce-e2e-gateway-5678';
const TEST_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 60_000;

function writeConfig(dir: string, windowSeconds: number): string {
  const path = join(dir, 'hookgate.json5');
  const mapping = {
    id: 'gh-pr',
    match: { path: 'github' },
    action: 'agent',
    signature: { scheme: 'github', secret: SECRET },
    events: ['pull_request'],
    filter: { all: [{ field: 'payload.pull_request.draft', notEquals: true }, { not: { field: 'payload.sender.type', equals: 'Bot' } }] },
    debounce: { key: '{{repository.full_name}}#{{pull_request.number}}', windowSeconds, maxWaitSeconds: 60 },
    messageTemplate: 'Review PR {{pull_request.number}} at {{after}}',
    deliver: false,
  };
  writeFileSync(path, JSON.stringify({ gateway: { port: 0, auth: { token: GATEWAY_TOKEN } }, hooks: { enabled: true, token: TOKEN, mappings: [mapping] }, storage: { path: 'store.sqlite' } }));
  return path;
}

async function deliver(url: string, event: string, payload: Record<string, unknown>) {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const response = await fetch(`${url}/hooks/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function synchronize(index: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { action: 'synchronize', after: `sha-${index}`, repository: { full_name: 'acme/app' }, pull_request: { number: 7, draft: false }, sender: { type: 'User' }, ...extra };
}

async function runView(url: string, runId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/hooks/runs/${runId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return ((await response.json()) as { run: Record<string, unknown> }).run;
}

function storedRuns(dbPath: string): Array<{ run_id: string; action: string }> {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare('SELECT run_id, action FROM runs').all() as Array<{ run_id: string; action: string }>;
  } finally {
    db.close();
  }
}

describe('debounce end to end', () => {
  const scratch = scratchServers('hookgate-debounce-');

  it('turns 20 signed pull_request.synchronize deliveries into one run whose prompt says 19 were merged', async () => {
    const dir = scratch.newDir();
    const server = await spawnServer(writeConfig(dir, 4), {}, START_TIMEOUT_MS);
    scratch.track(server);
    const replies = [];
    for (let index = 0; index < 20; index += 1) replies.push(await deliver(server.url, 'pull_request', synchronize(index)));
    const runId = replies[0]?.body['runId'] as string;
    for (const reply of replies) expect(reply).toEqual({ status: 202, body: { ok: true, runId, debounced: true } });
    // Passed over, not merged: a bot's push and an event the mapping does not take.
    expect(await deliver(server.url, 'pull_request', synchronize(99, { sender: { type: 'Bot' } }))).toEqual({ status: 200, body: { ok: true, skipped: 'filter' } });
    expect(await deliver(server.url, 'push', { ref: 'refs/heads/main' })).toEqual({ status: 200, body: { ok: true, skipped: 'event', event: 'push' } });

    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toContain('hookgate_debounce_merged_total{mapping="gh-pr"} 19');
    expect(metrics).toContain('hookgate_hook_skipped_total{mapping="gh-pr",reason="filter"} 1');
    expect(metrics).toContain('hookgate_hook_skipped_total{mapping="gh-pr",reason="event"} 1');
    expect(metrics).toContain('hookgate_debounce_groups_open 1');

    const pending = await runView(server.url, runId);
    expect(pending).toMatchObject({ runId, status: 'pending', deliveries: 20 });
    expect(Date.parse(pending['firesAt'] as string)).toBeGreaterThan(Date.now() - 5000);

    await until(async () => (await runView(server.url, runId))['status'] === 'ok', 60_000);
    const runs = storedRuns(join(dir, 'store.sqlite'));
    expect(runs.map((run) => run.run_id)).toEqual([runId]);
    const message = (JSON.parse(runs[0]?.action ?? '{}') as { message: string }).message;
    expect(message).toContain('Review PR 7 at sha-19');
    expect(message).toContain('(19 earlier deliveries for this key were merged into this one)');
  }, TEST_TIMEOUT_MS);

  it('still makes exactly one run when the process is killed mid-window', async () => {
    const dir = scratch.newDir();
    const config = writeConfig(dir, 3);
    const first = await spawnServer(config, {}, START_TIMEOUT_MS);
    scratch.track(first);
    const replies = [];
    for (let index = 0; index < 5; index += 1) replies.push(await deliver(first.url, 'pull_request', synchronize(index)));
    const runId = replies[0]?.body['runId'] as string;
    expect((await runView(first.url, runId))['status']).toBe('pending');
    first.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(storedRuns(join(dir, 'store.sqlite'))).toEqual([]);

    const second = await spawnServer(config, {}, START_TIMEOUT_MS);
    scratch.track(second);
    await until(async () => (await runView(second.url, runId))['status'] === 'ok', 60_000);
    const runs = storedRuns(join(dir, 'store.sqlite'));
    expect(runs.map((run) => run.run_id)).toEqual([runId]);
    expect((JSON.parse(runs[0]?.action ?? '{}') as { message: string }).message).toContain('(4 earlier deliveries for this key were merged into this one)');
    // A delivery after the group fired opens a new group: never a second run for the old one.
    const later = await deliver(second.url, 'pull_request', synchronize(50));
    expect(later.body['runId']).not.toBe(runId);
  }, TEST_TIMEOUT_MS);
});
