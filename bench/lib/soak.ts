/**
 * `npm run bench -- --soak`: Hookgate alone for minutes under a fixed mixed load — wake, agent
 * (echo runs executing), template mapping and transform mapping, a quarter of the rate each, 1 KB
 * bodies — with a 30 s heartbeat. The process tree's RSS is sampled every 30 s (and its peak every
 * second): what matters here is whether memory settles or keeps climbing, which a 2 s row cannot show.
 */
import type { ChildRegistry } from './processes.js';
import { measureTogether, type Sample } from './load.js';
import { measurePaced } from './paced-load.js';
import { allRows, type Row } from './plan.js';
import { startHookgate } from './servers.js';
import { max } from './stats.js';

export interface SoakOptions {
  minutes: number;
  /** Requests per second across the four kinds. */
  rate: number;
  tmp: string;
  log: (line: string) => void;
  /** Extra `node` flags for Hookgate (--node-flags). */
  nodeFlags: string[];
  /** autocannon's rate (each second's requests sent at its start) instead of requests evenly spaced (--soak-bursts). */
  bursts?: boolean;
}

export interface SoakResult {
  minutes: number;
  rate: number;
  bursts: boolean;
  kinds: Array<{ label: string; sample: Sample }>;
  /** [seconds since the load started, RSS bytes], every 30 s from 0. */
  rss: Array<[number, number]>;
  peakRss: number;
  /** The highest one-second sample of the tree's Pss (shared pages counted once). */
  peakPss: number;
  idleRss: number;
  cpuUsPerRequest: number;
}

const MB = 1024 * 1024;
const SAMPLE_EVERY_S = 30;
/** The soak's four kinds: the same bodies and paths as the rows of the same name. */
const KINDS = ['wake-1k', 'agent-1k', 'template-1k', 'transform-1k'];

export async function soak(children: ChildRegistry, options: SoakOptions): Promise<SoakResult> {
  const server = await startHookgate(children, options.tmp, { kind: 'soak', synchronous: 'full', label: 'soak', nodeFlags: options.nodeFlags });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idleRss = server.rss();
    const rows = KINDS.map((id) => allRows().find((r) => r.id === id) as Row);
    const started = performance.now();
    const rss: Array<[number, number]> = [[0, server.rss()]];
    let peak = rss[0]?.[1] ?? 0;
    let peakPss = server.pss();
    const everySecond = setInterval(() => {
      const now = server.rss();
      peak = Math.max(peak, now);
      peakPss = Math.max(peakPss, server.pss());
      const seconds = Math.round((performance.now() - started) / 1000);
      if (seconds >= rss.length * SAMPLE_EVERY_S) {
        rss.push([seconds, now]);
        options.log(`  soak ${seconds} s: RSS ${(now / MB).toFixed(0)} MB (peak ${(peak / MB).toFixed(0)} MB)`);
      }
    }, 1000);
    const drive = options.bursts === true ? measureTogether : measurePaced;
    const { samples, cpuUsPerRequest } = await drive(server, rows, { durationSeconds: options.minutes * 60, connections: 8, totalRate: options.rate });
    clearInterval(everySecond);
    rss.push([Math.round((performance.now() - started) / 1000), server.rss()]);
    return {
      minutes: options.minutes,
      rate: options.rate,
      bursts: options.bursts === true,
      kinds: rows.map((row, i) => ({ label: row.label, sample: samples[i] as Sample })),
      rss,
      peakRss: max([peak, ...rss.map(([, bytes]) => bytes)]),
      peakPss,
      idleRss,
      cpuUsPerRequest,
    };
  } finally {
    await server.stop();
  }
}

/**
 * Least-squares slope of RSS over the second half of the soak, in MB per minute: the first
 * minutes are V8 sizing its heaps, the rest says whether memory keeps growing.
 */
export function rssTrend(rss: Array<[number, number]>): number {
  const half = rss.slice(Math.floor(rss.length / 2));
  if (half.length < 2) return NaN;
  const n = half.length;
  const mx = half.reduce((s, [x]) => s + x, 0) / n;
  const my = half.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = half.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = half.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? NaN : ((sxy / sxx) * 60) / MB;
}

export function soakMarkdown(result: SoakResult): string {
  const total = result.kinds.reduce((sum, k) => sum + k.sample.responses, 0);
  const failures = result.kinds.reduce((sum, k) => sum + k.sample.failures, 0);
  const trend = rssTrend(result.rss);
  const lines = [
    `${result.minutes} min at ${result.rate} req/s (a quarter each of wake, agent with echo runs executing, template mapping, transform mapping; 1 KB bodies; heartbeat every 30 s; storage.synchronous full; ` +
      (result.bursts
        ? "autocannon's rate: each connection's requests for a second sent back to back at its start, 8 connections per kind; latency from each request's send): "
        : 'requests evenly spaced, 8 keep-alive connections per kind at most; latency from when each request was due, bench/lib/paced-load.ts): ') +
      `${total} responses, ${failures} failures, CPU ${result.cpuUsPerRequest.toFixed(0)} µs per request (whole process tree).`,
    '',
    '| kind | req/s | p50 ms | p99 ms | failures |',
    '|---|---:|---:|---:|---:|',
    ...result.kinds.map((k) => `| ${k.label} | ${k.sample.rps.toFixed(0)} | ${k.sample.p50} | ${k.sample.p99} | ${k.sample.failures}${k.sample.failures > 0 ? ` (${k.sample.statuses})` : ''} |`),
    '',
    `RSS of the process tree (MB) every ${SAMPLE_EVERY_S} s from the start of the load (idle before it: ${(result.idleRss / MB).toFixed(0)} MB):`,
    '',
    '| s | ' + result.rss.map(([s]) => s).join(' | ') + ' |',
    '|---|' + result.rss.map(() => '---:').join('|') + '|',
    '| MB | ' + result.rss.map(([, b]) => (b / MB).toFixed(0)).join(' | ') + ' |',
    '',
    '| target | measured | |',
    '|---|---:|---|',
    `| soak: RSS peak ≤ 250 MB (sampled every second) | ${(result.peakRss / MB).toFixed(0)} MB | ${result.peakRss <= 250 * MB ? 'met' : '**missed**'} |`,
    `| soak: no upward trend (RSS slope over the second half ≤ 1 MB/min) | ${trend.toFixed(1)} MB/min | ${trend <= 1 ? 'met' : '**missed**'} |`,
    `| (for reference) the tree's peak Pss: shared pages, such as the \`node\` executable mapped by the server and the sandbox worker, counted once | ${(result.peakPss / MB).toFixed(0)} MB | |`,
    ...(result.bursts ? [] : [`| soak: p99 < 10 ms for every kind (requests evenly spaced) | ${worstP99(result)} ms | ${worstP99(result) < 10 ? 'met' : '**missed**'} |`]),
  ];
  return lines.join('\n');
}

function worstP99(result: SoakResult): number {
  return Math.max(...result.kinds.map((k) => k.sample.p99));
}
