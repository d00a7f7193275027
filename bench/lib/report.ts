/** Markdown for one suite: the rows table, the process footprint table and the target verdicts. */
import type { SuiteResult } from './suite.js';
import { cpuRatio, ratio } from './suite.js';
import type { Reference } from './servers.js';
import { median } from './stats.js';
import { floorVerdicts, verdicts } from './targets.js';

const MB = 1024 * 1024;

export function suiteMarkdown(result: SuiteResult): string {
  return [
    `### storage.synchronous = ${result.synchronous}`,
    '',
    rowsTable(result),
    '',
    processTable(result),
    '',
    targetTable(result),
  ].join('\n');
}

/**
 * One line per row: Hookgate's rate, latency and CPU per request (µs of the whole process tree's CPU
 * ÷ responses), each reference's rate (p99 ms, CPU µs/req), then the ratios: req/s ÷ each reference
 * (higher is better) and CPU per request ÷ the Koa floor's (lower is better).
 */
function rowsTable(result: SuiteResult): string {
  const koa = [...result.samples.values()].some((s) => s['ref-koa'].length > 0);
  const lines = [
    `| row | Hookgate req/s | p50 ms | p99 ms | CPU µs/req | ref-http req/s (p99, CPU) | ref-durable req/s (p99, CPU) |${koa ? ' ref-koa req/s (p99, CPU) |' : ''} ÷ HTTP | ÷ durable |${koa ? ' ÷ Koa floor | CPU ÷ Koa floor\'s |' : ''}`,
    `|---|---:|---:|---:|---:|---:|---:|${koa ? '---:|' : ''}---:|---:|${koa ? '---:|---:|' : ''}`,
  ];
  for (const row of result.rows) {
    const s = result.samples.get(row.id);
    if (s === undefined || s.hookgate.length === 0) continue;
    const failed = [...s.hookgate, ...s['ref-http'], ...s['ref-durable'], ...s['ref-koa']].some((x) => x.failures > 0);
    const rate = (xs: typeof s.hookgate) => median(xs.map((x) => x.rps)).toFixed(0);
    const p = (xs: typeof s.hookgate, key: 'p50' | 'p99') => fmt(median(xs.map((x) => x[key])));
    const cpu = (xs: typeof s.hookgate) => median(xs.map((x) => x.cpuUsPerRequest)).toFixed(0);
    const served = (xs: typeof s.hookgate) => `${rate(xs)} (${p(xs, 'p99')}, ${cpu(xs)})`;
    const ratioOf = (reference: Reference) => (row.halfRateOf === undefined ? ratio(s, reference).toFixed(2) : '—');
    lines.push(
      `| ${row.label}${failed ? ' ⚠ non-2xx/errors' : ''} | ${rate(s.hookgate)} | ${p(s.hookgate, 'p50')} | ${p(s.hookgate, 'p99')} | ${cpu(s.hookgate)} | ` +
        `${served(s['ref-http'])} | ${served(s['ref-durable'])} |${koa ? ` ${served(s['ref-koa'])} |` : ''} ` +
        `${ratioOf('ref-http')} | ${ratioOf('ref-durable')} |${koa ? ` ${ratioOf('ref-koa')} | ${cpuRatio(s, 'ref-koa').toFixed(2)} |` : ''}`,
    );
  }
  return lines.join('\n');
}

function processTable(result: SuiteResult): string {
  const lines = ['| Hookgate configuration | start → /readyz 200 | RSS idle | RSS peak under load |', '|---|---:|---:|---:|'];
  for (const [kind, p] of result.processes) {
    lines.push(`| ${kind} | ${median(p.readyMs).toFixed(0)} ms | ${(median(p.idleRss) / MB).toFixed(0)} MB | ${(median(p.loadRss) / MB).toFixed(0)} MB |`);
  }
  if (result.koaIdleRss.length > 0) lines.push(`| (the Koa floor, bench/reference-koa.ts) | — | ${(median(result.koaIdleRss) / MB).toFixed(0)} MB | — |`);
  return lines.join('\n');
}

function targetTable(result: SuiteResult): string {
  const floor = floorVerdicts(result);
  const lines: string[] = [];
  if (floor.length > 0) {
    lines.push(
      '| target (÷ the Koa floor, same row and round) | req/s ÷ floor | target | | CPU/req ÷ floor\'s | target | |',
      '|---|---:|---:|---|---:|---:|---|',
    );
    for (const v of floor) {
      lines.push(
        `| ${v.what} (${v.rowId}) | ${v.rate.toFixed(2)} | ≥ ${v.floor.toFixed(2)} | ${verdictWord(v.rate >= v.floor)} | ` +
          `${v.cpu.toFixed(2)} | ≤ ${(1 / v.floor).toFixed(2)} | ${verdictWord(v.cpu <= 1 / v.floor)} |`,
      );
    }
    lines.push('');
  }
  lines.push('| target | measured | |', '|---|---:|---|');
  for (const v of verdicts(result)) lines.push(`| ${v.target} | ${v.measured} | ${verdictWord(v.met)} |`);
  return lines.join('\n');
}

function verdictWord(met: boolean | undefined): string {
  if (met === undefined) return 'not measured';
  return met ? 'met' : '**missed**';
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(1) : ms.toFixed(0);
}

/** Median Hookgate req/s per `<sync>/<row>`: kept in RESULTS.md so the next run can say what changed. */
export function summaryData(results: SuiteResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    for (const row of r.rows) {
      const s = r.samples.get(row.id);
      if (s !== undefined && row.halfRateOf === undefined) out[`${r.synchronous}/${row.id}`] = Math.round(median(s.hookgate.map((x) => x.rps)));
    }
  }
  return out;
}
