/**
 * --profile, per row:
 *  1. where the CPU of a request goes by thread (bench/lib/threads.ts), for the Koa floor and for
 *     Hookgate, each freshly started and driven with the same load, without a profiler;
 *  2. Hookgate again under `node --cpu-prof`: the top self-time functions of its main thread and of
 *     its store writer thread (which inherits the profiling flags) during the load only.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildRegistry, Server } from './processes.js';
import { measure, type Load } from './load.js';
import type { Row } from './plan.js';
import type { Synchronous } from './configs.js';
import { startHookgate, startReference } from './servers.js';
import { summariseProfile, type ProfileSummary, type SelfTime } from './profile.js';
import { perRequest, threadCpu } from './threads.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ProfileOptions {
  rows: Row[];
  synchronous: Synchronous;
  durationSeconds: number;
  connections: number;
  tmp: string;
  log: (line: string) => void;
}

interface ThreadSplit {
  rps: number;
  byThread: Array<[string, number]>;
}

export async function profileRows(children: ChildRegistry, options: ProfileOptions): Promise<string> {
  const sections: string[] = [];
  for (const row of options.rows.filter((r) => r.halfRateOf === undefined)) {
    const load = { path: row.path, body: row.body, headers: row.headers, connections: options.connections };
    const floor = await splitByThread(await startReference(children, 'ref-koa', join(options.tmp, `threads-${row.id}`), options.synchronous), load, options);
    const hookgate = await splitByThread(await startHookgate(children, options.tmp, { kind: row.config, synchronous: options.synchronous, label: `threads-${row.id}` }), load, options);
    options.log(`  ${row.id}: Koa floor ${floor.rps.toFixed(0)} req/s, Hookgate ${hookgate.rps.toFixed(0)} req/s (by thread)`);
    const profiled = await profileHookgate(children, row, load, options);
    sections.push(section(row, floor, hookgate, profiled));
  }
  return sections.join('\n\n');
}

async function splitByThread(server: Server, load: Omit<Load, 'durationSeconds'>, options: ProfileOptions): Promise<ThreadSplit> {
  try {
    await measure(server.url, { ...load, durationSeconds: 1 });
    const before = threadCpu(server.pid);
    const sample = await measure(server.url, { ...load, durationSeconds: options.durationSeconds });
    return { rps: sample.rps, byThread: perRequest(before, threadCpu(server.pid), sample.responses) };
  } finally {
    await server.stop();
  }
}

interface Profiled {
  rps: number;
  requests: number;
  threads: Array<{ name: string; summary: ProfileSummary }>;
}

async function profileHookgate(children: ChildRegistry, row: Row, load: Omit<Load, 'durationSeconds'>, options: ProfileOptions): Promise<Profiled> {
  const dir = join(options.tmp, `prof-${row.id}`);
  mkdirSync(dir, { recursive: true });
  const server = await startHookgate(children, options.tmp, { kind: row.config, synchronous: options.synchronous, label: `prof-${row.id}`, cpuProfDir: dir });
  let sample: Awaited<ReturnType<typeof measure>>;
  let window: [number, number];
  try {
    await measure(server.url, { ...load, durationSeconds: 1 });
    const from = microsNow();
    sample = await measure(server.url, { ...load, durationSeconds: options.durationSeconds });
    window = [from, microsNow()];
    options.log(`  profiled ${row.id}: ${sample.rps.toFixed(0)} req/s`);
  } finally {
    await server.stop();
  }
  // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main thread; the others
  // are worker threads (the store's writer).
  const files = readdirSync(dir).filter((name) => name.includes(`.${server.pid}.`) && name.endsWith('.cpuprofile'));
  const threadOf = (name: string) => Number(name.split('.').at(-3));
  if (!files.some((name) => threadOf(name) === 0)) throw new Error(`no CPU profile of pid ${server.pid}'s main thread in ${dir}`);
  const threads = files
    .sort((a, b) => threadOf(a) - threadOf(b))
    .map((name) => ({ name: threadOf(name) === 0 ? 'main thread' : `worker thread ${threadOf(name)} (the store writer)`, summary: summariseProfile(join(dir, name), ROOT, window) }));
  return { rps: sample.rps, requests: sample.responses, threads };
}

function microsNow(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function section(row: Row, floor: ThreadSplit, hookgate: ThreadSplit, profiled: Profiled): string {
  const perReq = (ms: number) => ((ms * 1000) / Math.max(1, profiled.requests)).toFixed(1);
  const table = (title: string, items: SelfTime[]) =>
    [`| ${title} | self ms | share | µs per request |`, '|---|---:|---:|---:|', ...items.map((t) => `| \`${t.name.replace(/\|/g, '\\|')}\` | ${t.ms.toFixed(0)} | ${(t.share * 100).toFixed(1)}% | ${perReq(t.ms)} |`)].join('\n');
  const kinds = [...new Set([...hookgate.byThread, ...floor.byThread].map(([kind]) => kind))];
  const us = (split: ThreadSplit, kind: string) => split.byThread.find(([k]) => k === kind)?.[1];
  const total = (split: ThreadSplit) => split.byThread.reduce((sum, [, value]) => sum + value, 0);
  const cell = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(0));
  const threads = [
    `| thread | Hookgate CPU µs/req | Koa floor CPU µs/req |`,
    '|---|---:|---:|',
    ...kinds.map((kind) => `| ${kind} | ${cell(us(hookgate, kind))} | ${cell(us(floor, kind))} |`),
    `| **whole process tree** | **${total(hookgate).toFixed(0)}** | **${total(floor).toFixed(0)}** |`,
  ].join('\n');
  const parts = [
    `### ${row.label} (\`${row.id}\`)`,
    '',
    `CPU per request by thread (utime + stime from /proc, no profiler; Hookgate ${hookgate.rps.toFixed(0)} req/s, Koa floor ${floor.rps.toFixed(0)} req/s):`,
    '',
    threads,
    '',
    `Profiled: ${profiled.requests} requests (${profiled.rps.toFixed(0)} req/s under the profiler). Samples are wall time: a thread blocked in a native call (the writer's fsync) counts as busy there, \`(idle)\` is a thread waiting for work.`,
  ];
  for (const { name, summary } of profiled.threads) {
    parts.push('', `#### ${name}: ${summary.totalMs.toFixed(0)} ms of samples, ${perReq(summary.totalMs)} µs per request`, '', table('area', summary.byArea), '', table('function', summary.top));
  }
  return parts.join('\n');
}
