/**
 * One durability setting, N rounds. For every row of every round, all servers start fresh (fresh
 * SQLite files) and are driven in turn — ref-http, ref-durable, (ref-koa,) Hookgate — with the
 * same load, so machine drift lands on all of them alike. Fresh servers per row also keep every server
 * far from its first periodic WAL checkpoint (60 s after start, see docs/performance.md): no row
 * inherits another row's database, WAL or agent backlog.
 */
import type { ChildRegistry, Server } from './processes.js';
import { measure, type Sample } from './load.js';
import { FLOW_CONTROL_ROWS, type Row } from './plan.js';
import { compareInAlternation, type AlternationResult } from './alternation.js';
import type { ConfigKind, Synchronous } from './configs.js';
import { startHookgate, startReference, type Reference, type Target } from './servers.js';
import { median, sleep } from './stats.js';

export interface SuiteOptions {
  synchronous: Synchronous;
  rows: Row[];
  rounds: number;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  /** Also drive the Koa floor (bench/reference-koa.ts) in every row. */
  koaFloor: boolean;
  /** Extra `node` flags for Hookgate (--node-flags). */
  nodeFlags: string[];
  tmp: string;
  log: (line: string) => void;
}

export type RowSamples = Record<Target, Sample[]>;

export interface ProcessSamples {
  readyMs: number[];
  idleRss: number[];
  loadRss: number[];
}

export interface SuiteResult {
  synchronous: Synchronous;
  rows: Row[];
  samples: Map<string, RowSamples>;
  processes: Map<ConfigKind, ProcessSamples>;
  /** Hookgate's highest RSS sample under each row's load, one per round. */
  rowPeakRss: Map<string, number[]>;
  /** The Koa floor's RSS 0.5 s after start (as Hookgate's idle RSS), one per row and round. */
  koaIdleRss: number[];
  /** Each flow-control row against template-1k on one server, in alternation (when both rows ran). */
  alternation: Map<string, AlternationResult>;
}

export async function runSuite(children: ChildRegistry, options: SuiteOptions): Promise<SuiteResult> {
  const result: SuiteResult = { synchronous: options.synchronous, rows: options.rows, samples: new Map(), processes: new Map(), rowPeakRss: new Map(), koaIdleRss: [], alternation: new Map() };
  for (const row of options.rows) result.samples.set(row.id, { 'ref-http': [], 'ref-durable': [], 'ref-koa': [], hookgate: [] });
  for (let round = 1; round <= options.rounds; round++) {
    options.log(`[${options.synchronous}] round ${round}/${options.rounds}`);
    for (const row of options.rows) await runRow(children, row, round, result, options);
  }
  await compareFlowControlRows(children, result, options);
  return result;
}

/** The flow-control targets' measurement: ABBA on one server, 4 pairs per round of the suite (at least 4). */
async function compareFlowControlRows(children: ChildRegistry, result: SuiteResult, options: SuiteOptions): Promise<void> {
  const plain = options.rows.find((row) => row.id === 'template-1k');
  if (plain === undefined) return;
  for (const variant of options.rows.filter((row) => (FLOW_CONTROL_ROWS as readonly string[]).includes(row.id))) {
    options.log(`[${options.synchronous}] ${variant.id} against template-1k on one server, in alternation`);
    const pairs = Math.max(4, 4 * options.rounds);
    result.alternation.set(variant.id, await compareInAlternation(children, plain, variant, { ...options, pairs }));
  }
}

async function runRow(children: ChildRegistry, row: Row, round: number, result: SuiteResult, options: SuiteOptions): Promise<void> {
  const dir = `${options.tmp}/${options.synchronous}-r${round}-${row.id}`;
  const started: Server[] = [];
  try {
    const kinds: Reference[] = options.koaFloor ? ['ref-http', 'ref-durable', 'ref-koa'] : ['ref-http', 'ref-durable'];
    const refs = await Promise.all(kinds.map((kind) => startReference(children, kind, dir, options.synchronous)));
    started.push(...refs);
    // Alone, so its start-up time is not shared with the references' start-up.
    const hookgate = await startHookgate(children, options.tmp, { kind: row.config, synchronous: options.synchronous, label: `r${round}-${row.id}`, nodeFlags: options.nodeFlags });
    started.push(hookgate);
    const processes = result.processes.get(row.config) ?? { readyMs: [], idleRss: [], loadRss: [] };
    result.processes.set(row.config, processes);
    processes.readyMs.push(hookgate.readyMs);
    await sleep(500); // let start-up garbage settle before calling the footprint idle
    processes.idleRss.push(hookgate.rss());
    const koa = refs[kinds.indexOf('ref-koa')];
    if (koa !== undefined) result.koaIdleRss.push(koa.rss());
    const rate = row.halfRateOf === undefined ? undefined : halfRate(result, row.halfRateOf, round);
    const targets: Array<[Target, Server]> = [...kinds.map((kind, i): [Target, Server] => [kind, refs[i] as Server]), ['hookgate', hookgate]];
    for (const [target, server] of targets) {
      await measure(server.url, load(row, options, options.warmupSeconds, rate));
      const sampler = target === 'hookgate' ? sampleRss(hookgate) : undefined;
      const sample = await measure(server.url, load(row, options, options.durationSeconds, rate), () => server.cpuMs());
      if (sampler !== undefined) {
        const peak = sampler.stop();
        processes.loadRss.push(peak);
        result.rowPeakRss.set(row.id, [...(result.rowPeakRss.get(row.id) ?? []), peak]);
      }
      (result.samples.get(row.id) as RowSamples)[target].push(sample);
      options.log(`  ${row.id.padEnd(14)} ${target.padEnd(11)} ${sample.rps.toFixed(0).padStart(6)} req/s  p50 ${sample.p50} ms  p99 ${sample.p99} ms  CPU ${sample.cpuUsPerRequest.toFixed(0)} µs/req${sample.failures > 0 ? `  FAILURES ${sample.statuses}` : ''}`);
      if (sample.rps === 0) options.log(`  ${server.name} answered nothing: ${server.health()}`);
    }
  } finally {
    await Promise.all(started.map((server) => stopTimed(server, options.log)));
  }
}

/** A slow shutdown makes the run long; say so, it is also worth knowing about the service. */
async function stopTimed(server: Server, log: (line: string) => void): Promise<void> {
  const t0 = performance.now();
  await server.stop();
  const ms = performance.now() - t0;
  if (ms > 1500) log(`  ${server.name} took ${(ms / 1000).toFixed(1)} s to stop after SIGTERM`);
}

function load(row: Row, options: SuiteOptions, durationSeconds: number, overallRate?: number) {
  return {
    path: row.path,
    body: row.body,
    headers: row.headers,
    durationSeconds,
    connections: options.connections,
    ...(overallRate === undefined ? {} : { overallRate }),
  };
}

/** Half of what Hookgate reached on the reference row in this round (every server then gets that rate). */
function halfRate(result: SuiteResult, rowId: string, round: number): number {
  const base = result.samples.get(rowId)?.hookgate[round - 1]?.rps;
  if (base === undefined) throw new Error(`row ${rowId} must run before the half-rate row`);
  return Math.max(1, Math.round(base / 2));
}

/** Samples the process tree's RSS every 200 ms while the load runs; stop() returns the peak. */
function sampleRss(server: Server): { stop(): number } {
  let peak = server.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, server.rss());
  }, 200);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, server.rss());
    },
  };
}

/** Median over rounds of Hookgate's rate divided by a reference's rate in the same round. */
export function ratio(samples: RowSamples, reference: Reference): number {
  return median(samples.hookgate.map((s, i) => s.rps / (samples[reference][i]?.rps ?? NaN)));
}

/** Median over rounds of Hookgate's CPU per request divided by a reference's in the same round (lower is better). */
export function cpuRatio(samples: RowSamples, reference: Reference): number {
  return median(samples.hookgate.map((s, i) => s.cpuUsPerRequest / (samples[reference][i]?.cpuUsPerRequest ?? NaN)));
}
