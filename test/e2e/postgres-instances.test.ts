import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InstancePair, RECORDING_MODEL, type Execution } from '../helpers/instance-pair.js';
import { spawnServer } from '../helpers/process.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { freePort, startEmbeddedPostgres, type StartedPostgres } from '../helpers/embedded-postgres.js';
import { until } from '../helpers/wait.js';

/**
 * Two `hookgate serve` processes on one PostgreSQL database, load on both. The model is
 * a `command` program that records on which instance it answered what and when
 * (test/fixtures/providers/recording-model.mjs). Leases are short (storage.leaseSeconds) so a dead
 * instance's runs are taken over within seconds; every wait is bounded.
 */
const TOKEN = 'multi-instance-hook-token';
const GATEWAY_TOKEN = 'multi-instance-gateway-token';
const LEASE_SECONDS = 3;

describe('two instances on one PostgreSQL database', () => {
  const pair = new InstancePair('hookgate-pg-e2e-');
  afterEach(() => pair.stop());

  function writeConfig(url: string, maxConcurrent: number): string {
    return pair.writeConfig({
      gateway: { port: 0, shutdownGraceMs: 1000, auth: { token: GATEWAY_TOKEN } },
      hooks: { enabled: true, token: TOKEN },
      agents: { defaults: { model: 'recorder/model', maxConcurrent, heartbeat: { every: '1h' }, delivery: { channel: 'log' } } },
      models: { providers: { recorder: { api: 'command', command: [process.execPath, RECORDING_MODEL] } } },
      storage: { url, pool: 6, leaseSeconds: LEASE_SECONDS },
      logging: { level: 'info' },
    });
  }

  it('kill -9 of one instance mid-load: every 2xx is stored, its running runs are re-run by the survivor after the lease, none ran twice while its owner lived', async () => {
    const db = await createTestDatabase();
    pair.onStop(db.drop);
    const config = writeConfig(db.url, 3);
    const [a, b] = await pair.start(config, 600);
    const client = await pair.database(db.url);
    const acknowledged = new Map<number, string>();
    const total = 16;
    let killedAt = Number.POSITIVE_INFINITY;

    // Eight senders share the requests; each tries A or B in turn and, like a real sender,
    // retries a failed request (connection refused after the kill, 503) with the same key.
    let next = 0;
    const sender = async (offset: number): Promise<void> => {
      for (let n = next++; n < total; n = next++) {
        for (let attempt = 0; !acknowledged.has(n); attempt += 1) {
          if (attempt > 200) throw new Error(`request ${n} never acknowledged`);
          const target = (n + offset + attempt) % 2 === 0 || a!.child.signalCode !== null ? b! : a!;
          const answer = await postAgent(target.url, n).catch(() => undefined);
          if (answer?.status === 202) acknowledged.set(n, answer.runId);
          else await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, i) => sender(i)));
    // Kill A once it is executing runs and the load is still going.
    await until(() => pair.executions().some((e) => e.event === 'start' && e.instance === 'A'), 30_000);
    killedAt = Date.now();
    a!.kill('SIGKILL');
    await load;

    expect(acknowledged.size).toBe(total);
    const runIds = [...acknowledged.values()];
    const stored = await client.query<{ run_id: string }>('SELECT run_id FROM runs');
    expect(new Set(stored.rows.map((row) => row.run_id))).toEqual(new Set(runIds));

    await until(async () => (await client.query("SELECT 1 FROM runs WHERE status <> 'ok'")).rowCount === 0, 90_000);
    const tokenOf = new Map([...acknowledged].map(([n, runId]) => [runId, `RUN-${n}`]));
    const acknowledgedRun = (runId: string): string => tokenOf.get(runId) ?? runId;
    const byRun = new Map<string, Execution[]>();
    for (const e of pair.executions().filter((e) => e.kind === 'run' && e.event === 'start')) byRun.set(e.run!, [...(byRun.get(e.run!) ?? []), e]);
    const takenOver = [...byRun.values()].filter((starts) => starts.length > 1);
    // A was executing when it died: those runs ran again, on B, and only after A was gone.
    expect(takenOver.length).toBeGreaterThan(0);
    for (const starts of takenOver) {
      expect(starts).toHaveLength(2);
      expect(starts[0]!.instance).toBe('A');
      expect(starts[1]!.instance).toBe('B');
      expect(starts[1]!.at).toBeGreaterThanOrEqual(killedAt);
    }
    // The survivor answers for runs the dead instance accepted.
    const [firstRun] = runIds;
    const view = await fetch(`${b!.url}/hooks/runs/${firstRun}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await view.json()).toMatchObject({ ok: true, run: { runId: firstRun, status: 'ok' } });
    // Runs A had claimed when it died were started a second time (the attempt counted), on B, after
    // the kill: those A had begun executing, and those A claimed but never got to start.
    const attempts = await client.query<{ run_id: string; attempts: number }>('SELECT run_id, attempts FROM runs');
    for (const row of attempts.rows) {
      const starts = byRun.get(acknowledgedRun(row.run_id)) ?? [];
      if (starts.length === 2) expect(row.attempts).toBe(2);
      if (row.attempts === 2) expect(starts.at(-1)).toMatchObject({ instance: 'B' });
      if (row.attempts === 2) expect(starts.at(-1)!.at).toBeGreaterThanOrEqual(killedAt);
      expect([1, 2]).toContain(row.attempts);
    }
  }, 180_000);

  it('a PostgreSQL restart mid-load: 503 STORE_UNAVAILABLE with Retry-After while it is down, /readyz 503, nothing acknowledged lost, recovery', async () => {
    const server: StartedPostgres = await startEmbeddedPostgres('restart');
    pair.onStop(server.destroy);
    await server.ready;
    const db = await createTestDatabase(server.info);
    const config = writeConfig(db.url, 2);
    const [a, b] = await pair.start(config, 0);
    const refusals: Array<{ status: number; code: string; retryAfter: string | null }> = [];
    const acknowledged = new Set<number>();
    const total = 150;
    let next = 0;
    const sender = async (offset: number): Promise<void> => {
      for (let n = next++; n < total; n = next++) {
        for (let attempt = 0; !acknowledged.has(n); attempt += 1) {
          if (attempt > 400) throw new Error(`wake ${n} never acknowledged`);
          const target = (n + offset + attempt) % 2 === 0 ? a! : b!;
          const response = await fetch(`${target.url}/hooks/wake`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `wake-${n}` },
            body: JSON.stringify({ text: `W-${n}`, mode: 'next-heartbeat' }),
          }).catch(() => undefined);
          if (response?.status === 200) acknowledged.add(n);
          else if (response !== undefined) {
            const body = (await response.json()) as { code: string };
            refusals.push({ status: response.status, code: body.code, retryAfter: response.headers.get('retry-after') });
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, i) => sender(i)));
    await until(() => acknowledged.size >= 30, 30_000);
    await server.stop();
    await until(async () => (await fetch(`${a!.url}/readyz`)).status === 503, 15_000);
    await until(() => refusals.length > 0, 15_000);
    await server.start();
    await load;
    await until(async () => (await fetch(`${a!.url}/readyz`)).status === 200 && (await fetch(`${b!.url}/readyz`)).status === 200, 15_000);

    expect(acknowledged.size).toBe(total);
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) expect(refusal).toMatchObject({ status: 503, code: 'STORE_UNAVAILABLE', retryAfter: '5' });
    const client = await pair.database(db.url);
    const texts = await client.query<{ text: string }>('SELECT text FROM events');
    // Every acknowledged wake is stored, each once: the retries of a committed one were replays.
    expect(texts.rows.map((row) => row.text).sort()).toEqual([...acknowledged].map((n) => `W-${n}`).sort());
  }, 180_000);

  it('200 wakes with mode now spread over both: heartbeats never overlap, every event is consumed exactly once', async () => {
    const db = await createTestDatabase();
    pair.onStop(db.drop);
    const config = writeConfig(db.url, 2);
    const [a, b] = await pair.start(config, 100);
    const client = await pair.database(db.url);
    // Four waves of 50, each sent once the previous one was consumed: on a loaded machine one wave
    // can be read by a single heartbeat, so the waves make sure several heartbeats ran, each wave's
    // wakes asking both instances for one at the same time.
    for (let wave = 0; wave < 4; wave += 1) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const n = wave * 50 + i;
          const response = await fetch(`${(n % 2 === 0 ? a! : b!).url}/hooks/wake`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ text: `W-${n}.`, mode: 'now' }),
          });
          expect(response.status).toBe(200);
        }),
      );
      await until(async () => (await client.query("SELECT 1 FROM events WHERE status = 'pending'")).rowCount === 0, 60_000);
    }
    await until(async () => (await client.query("SELECT 1 FROM heartbeats WHERE status = 'running'")).rowCount === 0, 30_000);

    // Measured by the model itself: no two heartbeat calls were ever in progress at once.
    const calls = pair.executions().filter((e) => e.kind === 'heartbeat');
    let open = 0;
    for (const call of calls.sort((x, y) => x.at - y.at || (x.event === 'end' ? -1 : 1))) {
      open += call.event === 'start' ? 1 : -1;
      expect(open).toBeLessThanOrEqual(1);
    }
    // Several heartbeats ran (at least one per wave, on whichever instance got the turn), so "never two at once" was at stake.
    expect(calls.filter((call) => call.event === 'start').length).toBeGreaterThanOrEqual(4);
    // And by the database: heartbeat intervals follow each other.
    const beats = await client.query<{ started_at: number; finished_at: number }>('SELECT started_at::float8 AS started_at, finished_at::float8 AS finished_at FROM heartbeats ORDER BY started_at');
    beats.rows.forEach((beat, i) => i > 0 && expect(beat.started_at).toBeGreaterThanOrEqual(beats.rows[i - 1]!.finished_at));
    // Each event was read by exactly one heartbeat: its line is in exactly one prompt of the main session.
    const prompts = await client.query<{ content: string }>("SELECT content FROM transcripts WHERE session_key = 'main' AND role = 'user'");
    for (let n = 0; n < 200; n += 1) {
      expect(prompts.rows.filter((row) => row.content.includes(`W-${n}.`)).length, `W-${n}`).toBe(1);
    }
    const consumed = await client.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM events WHERE status = 'consumed' AND heartbeat_id IS NOT NULL");
    expect(consumed.rows[0]!.n).toBe(200);

    // Each instance's metrics carry its own instance label.
    const labels = await Promise.all(
      [a!, b!].map(async (server) => {
        const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
        return /hookgate_http_requests_total\{[^}]*hookgate_instance="([^"]+)"/.exec(text)?.[1];
      }),
    );
    expect(labels[0]).toMatch(/:\d+$/);
    expect(labels[1]).toMatch(/:\d+$/);
    expect(labels[0]).not.toBe(labels[1]);
  }, 180_000);
});

describe('serve with an unreachable PostgreSQL', () => {
  it('refuses to start: exit 1 and one line naming the database without its password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-pg-down-'));
    try {
      const port = await freePort();
      const config = join(dir, 'hookgate.json5');
      writeFileSync(config, JSON.stringify({ gateway: { port: 0 }, hooks: { enabled: true, token: TOKEN }, storage: { url: `postgres://hookgate:pw-never-shown@127.0.0.1:${port}/hookgate` } }));
      const failure = (await spawnServer(config, {}, 30_000).then(
        () => 'started',
        (error: unknown) => (error as Error).message,
      )) as string;
      expect(failure).toMatch(new RegExp(`exited with 1 before listening: hookgate: cannot start: PostgreSQL at postgres://hookgate@127\\.0\\.0\\.1:${port}/hookgate: .*ECONNREFUSED`));
      expect(failure).not.toContain('pw-never-shown');
      expect(failure).not.toMatch(/\n\s+at /); // no stack
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

async function postAgent(url: string, n: number): Promise<{ status: number; runId: string }> {
  const response = await fetch(`${url}/hooks/agent`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `run-${n}` },
    body: JSON.stringify({ message: `RUN-${n}`, name: 'Load', deliver: false, wakeMode: 'next-heartbeat' }),
  });
  const body = (await response.json()) as { runId: string };
  return { status: response.status, runId: body.runId };
}

