import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStatus } from '../../src/commands/status.js';
import { runCaptured } from '../helpers/cli.js';
import { readRunView } from '../../src/store/sqlite/run-queries.js';
import { agentAction, insertRun, insertWake, tempStore, type TempStore } from './helpers.js';
import { insertForward } from './targets.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

describe('readRunView', () => {
  it('shows a queued run with ISO times and neither the message nor the reply', () => {
    const action = insertRun(store.db, agentAction({ name: 'GitHub', sessionKey: 'hook:abc', message: 'SECRET MESSAGE' }), Date.UTC(2025, 4, 1));
    expect(readRunView(store.db, action.runId)).toEqual({
      runId: action.runId,
      status: 'queued',
      hook: 'agent',
      name: 'GitHub',
      sessionKey: 'hook:abc',
      createdAt: '2025-05-01T00:00:00.000Z',
      attempts: 0,
      waitingFor: 'slot',
    });
  });

  it('shows a finished run with its times, summary, error and delivery outcome', () => {
    const action = insertRun(store.db, agentAction({ name: 'CI' }), 1000);
    store.db
      .prepare("UPDATE runs SET status = 'ok', started_at = 2000, finished_at = 3000, reply = 'RAW REPLY', summary = 'Hook CI: RAW REPLY', delivery = ? WHERE run_id = ?")
      .run(JSON.stringify({ status: 'skipped', reason: 'deliver is false' }), action.runId);
    const view = readRunView(store.db, action.runId);
    expect(view).toMatchObject({
      status: 'ok',
      startedAt: '1970-01-01T00:00:02.000Z',
      finishedAt: '1970-01-01T00:00:03.000Z',
      summary: 'Hook CI: RAW REPLY',
      delivery: { status: 'skipped', reason: 'deliver is false' },
    });
    expect(Object.keys(view ?? {})).not.toContain('reply');
    expect(JSON.stringify(view)).not.toContain(action.message);
  });

  it('returns undefined for an unknown run id', () => {
    expect(readRunView(store.db, 'nope')).toBeUndefined();
  });
});

describe('hookgate status', () => {
  function writeConfig(): string {
    const path = join(store.dir, 'hookgate.json5');
    writeFileSync(path, `{ storage: { path: ${JSON.stringify(store.path)} } }`);
    return path;
  }

  function seed(): string {
    insertWake(store.db, 'pending one', 'now', 1000);
    insertWake(store.db, 'pending two', 'next-heartbeat', 1000);
    insertRun(store.db, agentAction({ name: 'Waiting' }), 1000);
    const done = insertRun(store.db, agentAction({ name: 'Done' }), 2000);
    store.db.prepare("UPDATE runs SET status = 'ok', started_at = 2500, finished_at = 3000 WHERE run_id = ?").run(done.runId);
    store.db.prepare("INSERT INTO heartbeats (started_at, finished_at, status, event_count) VALUES (4000, 5000, 'ok', 3)").run();
    return done.runId;
  }

  async function status(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runStatus(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), env: {}, cwd: store.dir });
    return { code, out, err };
  }

  it('prints queue depths, the last heartbeat and recent runs', async () => {
    const doneId = seed();
    const result = await status(['--config', writeConfig()]);
    expect(result.code).toBe(0);
    expect(result.out).toContain('pending events: 2\n');
    expect(result.out).toContain('runs: 1 queued, 0 running (finished: 1 ok, 0 error, 0 timeout, 0 interrupted)\n');
    expect(result.out).toContain('last heartbeat: #1 ok at 1970-01-01T00:00:05.000Z, 3 events\n');
    const runLines = result.out.split('\n').filter((line) => line.startsWith('  '));
    expect(runLines).toHaveLength(2);
    expect(runLines[0]).toContain(`${doneId}  ok`);
    expect(runLines[0]).toContain('"Done"  created 1970-01-01T00:00:02.000Z, started 1970-01-01T00:00:02.500Z, finished 1970-01-01T00:00:03.000Z');
    expect(runLines[1]).toContain('queued');
  });

  it('shows a run whose delivery failed as failed in the text output, with the reason', async () => {
    const failed = insertRun(store.db, agentAction({ name: 'Paged' }), 1000);
    const delivered = insertRun(store.db, agentAction({ name: 'Told' }), 2000);
    const broken = insertRun(store.db, agentAction({ name: 'Broken' }), 3000);
    const finish = store.db.prepare("UPDATE runs SET status = ?, started_at = 3500, finished_at = 4000, error = ?, delivery = ? WHERE run_id = ?");
    finish.run('ok', null, JSON.stringify({ status: 'failed', channel: 'telegram', to: '42', reason: 'telegram: 401 Unauthorized', attempts: 4 }), failed.runId);
    finish.run('ok', null, JSON.stringify({ status: 'delivered', channel: 'log', to: 'main', parts: 1, attempts: 1 }), delivered.runId);
    finish.run('error', 'model "fast" is not a provider/model id', null, broken.runId);
    const result = await status(['--config', writeConfig()]);
    expect(result.code).toBe(0);
    const lines = result.out.split('\n');
    expect(lines).toContain('recent runs (newest first; 1 with a FAILED delivery):');
    const failedAt = lines.findIndex((line) => line.includes(failed.runId));
    expect(lines[failedAt]).toContain(`${failed.runId}  ok, delivery FAILED "Paged"`);
    expect(lines[failedAt + 1]).toBe('      delivery to telegram → 42 failed after 4 attempts: telegram: 401 Unauthorized');
    expect(lines.find((line) => line.includes(delivered.runId))).toContain('ok, delivered to log "Told"');
    const brokenAt = lines.findIndex((line) => line.includes(broken.runId));
    expect(lines[brokenAt + 1]).toBe('      error: model "fast" is not a provider/model id');
  });

  it('prints each note of a run under its line', async () => {
    const noted = insertRun(store.db, agentAction({ name: 'Noted' }), 1000);
    const notes = ['thinking "high" not sent: no', 'second note'];
    store.db.prepare("UPDATE runs SET status = 'ok', started_at = 1500, finished_at = 2000, notes = ? WHERE run_id = ?").run(JSON.stringify(notes), noted.runId);
    const lines = (await status(['--config', writeConfig()])).out.split('\n');
    const at = lines.findIndex((line) => line.includes(noted.runId));
    expect(lines.slice(at + 1, at + 3)).toEqual(['      note: thinking "high" not sent: no', '      note: second note']);
  });

  it('shows a forward run\'s target and what it answered, and one waiting for its retry', async () => {
    const sent = insertForward(store.db, 1000, { name: 'Sent' });
    const waiting = insertForward(store.db, 2000, { name: 'Waiting' });
    const handoff = { target: 'home', status: 200, runId: 'oc-1', outcome: { status: 'ok' } };
    store.db.prepare("UPDATE runs SET status = 'ok', started_at = 1500, finished_at = 1600, handoff = ? WHERE run_id = ?").run(JSON.stringify(handoff), sent.runId);
    const retry = { target: 'home', reason: 'unreachable (ECONNREFUSED)', retryAt: '1970-01-01T00:00:05.000Z' };
    store.db.prepare("UPDATE runs SET waiting_for = 'retry', not_before = 5000, error = 'target \"home\" unreachable', handoff = ? WHERE run_id = ?").run(JSON.stringify(retry), waiting.runId);
    const lines = (await status(['--config', writeConfig()])).out.split('\n');
    expect(lines[lines.findIndex((line) => line.includes(sent.runId)) + 1]).toBe('      forward to home, HTTP 200, its run oc-1, its run ended ok');
    expect(lines[lines.findIndex((line) => line.includes(waiting.runId)) + 1]).toBe('      forward to home, unreachable (ECONNREFUSED), next attempt 1970-01-01T00:00:05.000Z');
    expect(lines).toContain('runs waiting: 1 for retry');
  });

  it('prints the same as JSON with --json', async () => {
    seed();
    const result = await status(['--json', '--config', writeConfig()]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.out) as Record<string, unknown>;
    expect(report).toMatchObject({
      store: store.path,
      events: { pending: 2 },
      runs: { queued: 1, running: 0, ok: 1 },
      lastHeartbeat: { id: 1, status: 'ok', events: 3, startedAt: '1970-01-01T00:00:04.000Z' },
    });
    expect(report['recentRuns']).toHaveLength(2);
  });

  it('exits 1 with a message for a missing store and a bad config, 2 for an unknown flag', async () => {
    const missing = join(store.dir, 'other.json5');
    writeFileSync(missing, `{ storage: { path: ${JSON.stringify(join(store.dir, 'nothing.sqlite'))} } }`);
    const noStore = await status(['--config', missing]);
    expect(noStore).toMatchObject({ code: 1, out: '' });
    expect(noStore.err).toMatch(/^no store at .*nothing\.sqlite/);
    const badConfig = join(store.dir, 'bad.json5');
    writeFileSync(badConfig, '{ storage: { nope: 1 } }');
    expect(await status(['--config', badConfig])).toMatchObject({ code: 1, out: '' });
    const flag = await runCaptured(['status', '--bogus'], { cwd: store.dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('usage: hookgate status');
  });
});
