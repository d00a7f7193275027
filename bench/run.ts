/**
 * `npm run bench [-- options]`: Hookgate against the HTTP and durable limits of this stack
 * (bench/reference-http.ts, bench/reference-durable.ts), all as child processes on 127.0.0.1,
 * driven by autocannon in alternation; writes bench/RESULTS.md. See docs/performance.md.
 *
 *   --quick            one round, short loads, one row per target; prints, writes nothing unless --write
 *   --profile          instead: Hookgate alone under node --cpu-prof per row → bench/PROFILE.md
 *   --rows a,b         only these row ids (see bench/lib/plan.ts)
 *   --sync full|normal|both   durability setting(s); default: full, plus a normal subset in the full run
 *   --rounds N --duration S --connections C    override the defaults
 *   --warmup S         seconds of load before each measurement (default 0.5; 0.25 with --quick): a longer one
 *                      measures the steady state, after V8 has optimised the hot code of every server
 *   --koa-floor / --no-koa-floor   also drive bench/reference-koa.ts (default: on, off with --quick)
 *   --node-flags "…"   extra node flags for Hookgate (e.g. "--max-semi-space-size=4"), to measure a V8 setting's trade
 *   --note "text"      added to "What changed since the last run"
 *   --soak             instead: Hookgate alone under a fixed mixed load for minutes, RSS every 30 s
 *                      → the soak section of bench/RESULTS.md (--soak-minutes M, default 9; --soak-rate R, default 300;
 *                      requests evenly spaced, or --soak-bursts: autocannon's rate, each second's sent at its start)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createChildRegistry } from './lib/processes.js';
import { NORMAL_ROWS, planRows, type Row } from './lib/plan.js';
import { runSuite, type SuiteResult } from './lib/suite.js';
import { suiteMarkdown, summaryData } from './lib/report.js';
import { writeResults, writeSoak } from './lib/results-file.js';
import { soak, soakMarkdown } from './lib/soak.js';
import { profileRows } from './lib/profile-run.js';
import { commitMillis } from './lib/disk.js';
import type { Synchronous } from './lib/configs.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    rows: { type: 'string' },
    sync: { type: 'string' },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    warmup: { type: 'string' },
    note: { type: 'string' },
    'node-flags': { type: 'string' },
    'koa-floor': { type: 'boolean' },
    soak: { type: 'boolean', default: false },
    'soak-minutes': { type: 'string' },
    'soak-rate': { type: 'string' },
    'soak-bursts': { type: 'boolean', default: false },
  },
  allowNegative: true,
  strict: true,
});

if (Number(process.versions.node.split('.')[0]) < 24) throw new Error(`Node >= 24 needed (this is ${process.version})`);

const quick = values.quick;
const wanted = values.rows?.split(',');
const rows = planRows(quick && wanted === undefined).filter((r) => wanted === undefined || wanted.includes(r.id));
const rounds = Number(values.rounds ?? (quick ? 1 : 3));
const durationSeconds = Number(values.duration ?? (quick ? 1.5 : 2));
const connections = Number(values.connections ?? 32);
const warmupSeconds = Number(values.warmup ?? (quick ? 0.25 : 0.5));
if (!(warmupSeconds >= 0)) throw new Error('--warmup is a number of seconds');
// The Koa floor is context, not a target: --quick leaves it out to stay under a minute.
const koaFloor = values['koa-floor'] ?? !quick;
const nodeFlags = values['node-flags']?.split(' ').filter((flag) => flag !== '') ?? [];
const tmp = mkdtempSync(join(tmpdir(), 'hookgate-bench-'));
const children = createChildRegistry();
const log = (line: string): void => void process.stderr.write(`${line}\n`);

function cleanUp(): void {
  children.killAll();
  rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping every child process`);
    cleanUp();
    process.exit(130);
  });
}

function quoted(arg: string): string {
  return /^[\w.,=\/-]+$/.test(arg) ? arg : `"${arg.replace(/"/g, '\\"')}"`;
}

/** Which rows each durability setting measures. */
function settings(): Array<[Synchronous, Row[]]> {
  if (values.sync === 'full' || values.sync === 'normal') return [[values.sync, rows]];
  if (values.sync === 'both') return [['full', rows], ['normal', rows]];
  if (values.sync !== undefined) throw new Error('--sync is full, normal or both');
  const normal = rows.filter((r) => NORMAL_ROWS.has(r.id));
  return quick || normal.length === 0 ? [['full', rows]] : [['full', rows], ['normal', normal]];
}

async function benchmark(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const commitMs = { full: commitMillis(tmp, 'full'), normal: commitMillis(tmp, 'normal') };
  log(`one commit: ${commitMs.full.toFixed(2)} ms (full), ${commitMs.normal.toFixed(3)} ms (normal)`);
  const results: SuiteResult[] = [];
  for (const [synchronous, selected] of settings()) {
    results.push(await runSuite(children, { synchronous, rows: selected, rounds, durationSeconds, warmupSeconds, connections, koaFloor, nodeFlags, tmp, log }));
  }
  const body = results.map(suiteMarkdown).join('\n\n');
  process.stdout.write(`${body}\n`);
  if (quick && !values.write) return log('(--quick: bench/RESULTS.md left as it is; add --write to replace it)');
  writeResults(join(HERE, 'RESULTS.md'), {
    command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2).map(quoted)] : [])].join(' '),
    startedAt,
    finishedAt: new Date(),
    loadBefore,
    commitMs,
    settings:
      `autocannon: ${connections} connections, no pipelining, ${durationSeconds} s per measurement after a ${warmupSeconds} s warm-up per server; ` +
      `${nodeFlags.length > 0 ? `Hookgate runs with \`node ${nodeFlags.join(' ')}\`; ` : ''}median of ${rounds} round(s); for every row of every round all servers start fresh (fresh SQLite files) and are driven in turn ref-http → ref-durable${koaFloor ? ' → ref-koa' : ''} → Hookgate. ` +
      'Hookgate logs at `warn` (per-request `info` lines off), heartbeat every 1 h, wake/agent requests with mode/wakeMode next-heartbeat and deliver false. ' +
      'Agent rows measure admission: maxConcurrent 1 and a `command` provider running `sleep 3600`, so the first admitted run holds the only slot and the runtime stays idle; ' +
      'the "echo runs executing meanwhile" row uses the in-process echo provider instead, i.e. admission while the runtime drains the backlog.',
    ...(values.note === undefined ? {} : { note: values.note }),
    body,
    data: summaryData(results),
  });
  log('wrote bench/RESULTS.md');
}

async function profile(): Promise<void> {
  const synchronous: Synchronous = values.sync === 'normal' ? 'normal' : 'full';
  const body = await profileRows(children, { rows, synchronous, durationSeconds: Number(values.duration ?? 5), connections, tmp, log });
  const text = [
    '# Hookgate CPU profiles',
    '',
    `Written by \`npm run bench -- --profile\` on ${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}, storage.synchronous = ${synchronous}.`,
    'Per row: first the CPU of one request split by thread, for Hookgate and the Koa floor (bench/reference-koa.ts), each driven with the same load without a profiler;',
    'then the self time of Hookgate\'s main thread and of its store writer thread under `node --cpu-prof`, during the load only (start-up excluded; sandbox workers not included).',
    '`(idle)` is time the thread waited; `(garbage collector)` is GC on that thread; `(program)` is V8/native work not attributed to a JS function (libuv, sqlite, the HTTP parser).',
    '',
    body,
  ].join('\n');
  writeFileSync(join(HERE, 'PROFILE.md'), `${text}\n`);
  log('wrote bench/PROFILE.md');
}

async function soakRun(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const minutes = Number(values['soak-minutes'] ?? 9);
  const rate = Number(values['soak-rate'] ?? 300);
  if (!(minutes > 0) || !(rate > 0)) throw new Error('--soak-minutes and --soak-rate are positive numbers');
  log(`soak: ${minutes} min at ${rate} req/s`);
  const body = soakMarkdown(await soak(children, { minutes, rate, tmp, log, nodeFlags, bursts: values['soak-bursts'] }));
  process.stdout.write(`${body}\n`);
  writeSoak(join(HERE, 'RESULTS.md'), {
    command: ['npm run bench', '--', ...process.argv.slice(2).map(quoted)].join(' '),
    startedAt,
    finishedAt: new Date(),
    loadBefore,
    ...(values.note === undefined ? {} : { note: values.note }),
    body,
  });
  log('wrote the soak section of bench/RESULTS.md');
}

try {
  await (values.soak ? soakRun() : values.profile ? profile() : benchmark());
} finally {
  cleanUp();
}
