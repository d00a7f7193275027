import { afterEach, describe, expect, it } from 'vitest';
import { InstancePair, RECORDING_MODEL, type Execution } from '../helpers/instance-pair.js';
import type { ServerProcess } from '../helpers/process.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

/**
 * Two `hookgate serve` processes on one PostgreSQL database hold one concurrency key and one budget
 * together (docs/run-limits.md). The model records when it answers which RUN-<n> and on which
 * instance (test/fixtures/providers/recording-model.mjs). Summaries wait for the next (hourly)
 * heartbeat: a heartbeat's prompt quotes RUN-<n> and would be recorded as a run.
 */
const TOKEN = 'limits-instance-hook-token';

describe('run limits across two instances on PostgreSQL', () => {
  const pair = new InstancePair('hookgate-pg-limits-');
  afterEach(() => pair.stop());

  async function start(url: string, limits: { mapping?: Record<string, unknown>; defaults?: Record<string, unknown> }): Promise<[ServerProcess, ServerProcess]> {
    const config = pair.writeConfig({
      gateway: { port: 0, shutdownGraceMs: 1000 },
      hooks: { enabled: true, token: TOKEN, mappings: [{ id: 'limited', match: { path: 'limited' }, messageTemplate: 'RUN-{{n}}', wakeMode: 'next-heartbeat', ...limits.mapping }] },
      agents: { defaults: { model: 'recorder/model', maxConcurrent: 4, heartbeat: { every: '1h' }, delivery: { channel: 'log' }, ...limits.defaults } },
      models: { providers: { recorder: { api: 'command', command: [process.execPath, RECORDING_MODEL] } } },
      storage: { url, pool: 6, leaseSeconds: 3 },
      logging: { level: 'info' },
    });
    return pair.start(config, 300);
  }

  function runExecutions(): Execution[] {
    return pair.executions().filter((e) => e.kind === 'run');
  }

  async function send(server: ServerProcess, payload: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${server.url}/hooks/limited`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(202);
  }

  it('never runs two runs of one concurrency key at once, whichever instance admitted or claimed them, while two keys overlap', async () => {
    const db = await createTestDatabase();
    pair.onStop(db.drop);
    const [a, b] = await start(db.url, { mapping: { concurrency: { limit: 1, key: '{{key}}' } } });
    const client = await pair.database(db.url);
    const keyOf = new Map<string, string>();
    for (let n = 0; n < 8; n += 1) {
      const key = n % 2 === 0 ? 'a' : 'b';
      keyOf.set(`RUN-${n}`, key);
      await send(n % 4 < 2 ? a : b, { n, key });
    }
    await until(async () => (await client.query("SELECT 1 FROM runs WHERE status = 'ok'")).rowCount === 8, 60_000);
    const intervals = new Map<string, Array<{ start: number; end: number; instance: string }>>();
    const executions = runExecutions();
    for (const start of executions.filter((e) => e.event === 'start')) {
      const end = executions.find((e) => e.event === 'end' && e.run === start.run);
      const key = keyOf.get(start.run ?? '') ?? '?';
      intervals.set(key, [...(intervals.get(key) ?? []), { start: start.at, end: end?.at ?? Number.POSITIVE_INFINITY, instance: start.instance }]);
    }
    for (const runs of intervals.values()) {
      expect(runs).toHaveLength(4);
      const sorted = [...runs].sort((x, y) => x.start - y.start);
      for (let i = 1; i < sorted.length; i += 1) expect(sorted[i]!.start).toBeGreaterThanOrEqual(sorted[i - 1]!.end);
    }
    const [ofA, ofB] = [intervals.get('a') ?? [], intervals.get('b') ?? []];
    expect(ofA.some((x) => ofB.some((y) => x.start < y.end && y.start < x.end))).toBe(true);
  });

  it('counts one budget for both instances: runs admitted on the other instance wait for it', async () => {
    const db = await createTestDatabase();
    pair.onStop(db.drop);
    const [a, b] = await start(db.url, { defaults: { budget: { runsPerHour: 3 } } });
    const client = await pair.database(db.url);
    for (let n = 0; n < 3; n += 1) await send(a, { n });
    await until(async () => (await client.query("SELECT 1 FROM runs WHERE status = 'ok'")).rowCount === 3, 30_000);
    for (let n = 3; n < 5; n += 1) await send(b, { n });
    await until(async () => (await client.query("SELECT 1 FROM runs WHERE status = 'queued' AND waiting_for = 'budget'")).rowCount === 2, 30_000);
    expect(runExecutions().filter((e) => e.event === 'start')).toHaveLength(3);
    const view = await client.query<{ not_before: number }>("SELECT not_before FROM runs WHERE status = 'queued'");
    const firstStart = await client.query<{ at: number }>("SELECT MIN(at) AS at FROM run_starts WHERE scope = 'service'");
    expect(view.rows.map((row) => Number(row.not_before))).toEqual([Number(firstStart.rows[0]!.at) + 3_600_000, Number(firstStart.rows[0]!.at) + 3_600_000]);
  });
});
