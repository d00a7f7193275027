/**
 * The targets of issue 22, checked against one suite's results. Throughput targets are stated
 * against the Koa floor measured in the same row and round (bench/reference-koa.ts), twice: as
 * req/s ÷ the floor's req/s, and as CPU per request ÷ the floor's CPU per request, where a rate
 * target of r means a CPU target of 1/r (docs/performance.md says which one to trust).
 */
import type { SuiteResult } from './suite.js';
import { cpuRatio, ratio } from './suite.js';
import { max, median } from './stats.js';

export interface Verdict {
  target: string;
  measured: string;
  /** undefined: the run did not measure what the target needs (e.g. --quick has no Koa floor). */
  met: boolean | undefined;
}

export interface FloorVerdict {
  what: string;
  rowId: string;
  /** Hookgate req/s ÷ the Koa floor's, at least this. */
  floor: number;
  rate: number;
  /** Hookgate CPU per request ÷ the Koa floor's, at most 1 / floor. */
  cpu: number;
}

const MB = 1024 * 1024;

/** Issue 22's throughput targets: row, and the least fraction of the Koa floor's rate. */
export const FLOOR_TARGETS: ReadonlyArray<[string, string, number]> = [
  ['wake', 'wake-1k', 0.9],
  ['agent admission', 'agent-1k', 0.8],
  ['template mapping', 'template-1k', 0.75],
  ['agent admission, 64 KB', 'agent-64k', 0.5],
  ['template mapping, 64 KB', 'template-64k', 0.5],
  ['transform mapping', 'transform-1k', 0.4],
];

export function floorVerdicts(result: SuiteResult): FloorVerdict[] {
  const out: FloorVerdict[] = [];
  for (const [what, rowId, floor] of FLOOR_TARGETS) {
    const samples = result.samples.get(rowId);
    if (samples === undefined || samples['ref-koa'].length === 0) continue;
    out.push({ what, rowId, floor, rate: ratio(samples, 'ref-koa'), cpu: cpuRatio(samples, 'ref-koa') });
  }
  return out;
}

export function verdicts(result: SuiteResult): Verdict[] {
  const out: Verdict[] = [];
  const half = result.samples.get('wake-half');
  if (half !== undefined) {
    const p99 = median(half.hookgate.map((s) => s.p99));
    const koa = median(half['ref-koa'].map((s) => s.p99));
    const met = Number.isFinite(koa) ? p99 <= koa : undefined;
    out.push({ target: "wake p99 at half the maximum rate ≤ the Koa floor's p99 at the same rate", measured: `${p99} ms (floor ${Number.isFinite(koa) ? `${koa} ms` : 'not run'})`, met });
  }
  const many = result.samples.get('mappings-1000');
  const one = result.samples.get('template-1k');
  if (many !== undefined && one !== undefined) {
    // The two rows run minutes apart; each is first divided by the durable limit measured in its own
    // minute, so the machine's drift in between (±40 % here) does not pass for a cost of the mappings.
    const relative = (samples: typeof many, i: number): number => (samples.hookgate[i]?.rps ?? NaN) / (samples['ref-durable'][i]?.rps ?? NaN);
    const value = median(many.hookgate.map((_, i) => relative(many, i) / relative(one, i)));
    out.push({ target: '1,000 mappings within 10% of 1 mapping (req/s, each ÷ its durable limit)', measured: `${value.toFixed(2)} ×`, met: value >= 0.9 });
  }
  admissionVerdicts(result, out);
  memoryVerdicts(result, out);
  const core = result.processes.get('core');
  if (core !== undefined) {
    const ready = median(core.readyMs);
    out.push({ target: 'ready (/readyz 200) ≤ 1 s after process start', measured: `${ready.toFixed(0)} ms`, met: ready <= 1000 });
  }
  return out;
}

/**
 * Issues 28 and 29: a filter, debounce and a keyed rateLimit each keep ≥ 0.9 of the plain template
 * row's req/s, judged on one server in alternation (the suite's comparison), with the rows' own
 * medians, run one after the other, shown beside it.
 */
function admissionVerdicts(result: SuiteResult, out: Verdict[]): void {
  const plain = result.samples.get('template-1k');
  if (plain === undefined) return;
  for (const [rowId, what] of [['template-filter-1k', 'a 5-condition filter'], ['template-debounce-1k', 'debounce'], ['template-1k-ratelimit', 'a keyed rateLimit']] as const) {
    const samples = result.samples.get(rowId);
    if (samples === undefined) continue;
    const inTurn = median(samples.hookgate.map((sample, i) => sample.rps / (plain.hookgate[i]?.rps ?? NaN)));
    const ab = result.alternation.get(rowId);
    const target = `template mapping with ${what} ≥ 0.9 × the plain template row (req/s)`;
    if (ab === undefined) {
      out.push({ target, measured: `${inTurn.toFixed(2)} × (rows in turn)`, met: Number.isFinite(inTurn) ? inTurn >= 0.9 : undefined });
      continue;
    }
    const measured = `${ab.rate.toFixed(2)} × on one server, ${ab.pairs} ABBA pairs ${ab.low.toFixed(2)}–${ab.high.toFixed(2)}, CPU/req ${ab.cpu.toFixed(2)} × (rows in turn: ${inTurn.toFixed(2)} ×)`;
    out.push({ target, measured, met: ab.rate >= 0.9 });
  }
}

/** Idle: median over starts; loaded: the highest sample of any round (a peak is what a memory limit meets). */
function memoryVerdicts(result: SuiteResult, out: Verdict[]): void {
  const mb = (bytes: number): string => `${(bytes / MB).toFixed(0)} MB`;
  const core = result.processes.get('core');
  if (core !== undefined) {
    const idle = median(core.idleRss);
    const koa = median(result.koaIdleRss);
    const met = Number.isFinite(koa) ? idle <= koa + 15 * MB : undefined;
    out.push({ target: "RSS idle, no transform ≤ the Koa floor's idle RSS + 15 MB", measured: `${mb(idle)} (floor ${Number.isFinite(koa) ? mb(koa) : 'not run'})`, met });
  }
  const limits: Array<[string, string, number, number]> = [
    ['transform-1', 'one transform', 200, 300],
    ['transform-50', '50 transform modules', 250, 350],
  ];
  for (const [kind, what, idleMb, loadMb] of limits) {
    const p = result.processes.get(kind as 'transform-1');
    if (p === undefined) continue;
    const idle = median(p.idleRss);
    out.push({ target: `RSS idle, ${what} ≤ ${idleMb} MB`, measured: mb(idle), met: idle <= idleMb * MB });
    const peak = max(p.loadRss);
    out.push({ target: `RSS under load, ${what} ≤ ${loadMb} MB (highest sample)`, measured: mb(peak), met: peak <= loadMb * MB });
  }
  const large = result.rowPeakRss.get('wake-256k');
  if (large !== undefined) {
    const peak = max(large);
    out.push({ target: 'RSS peak, 256 KB bodies, 32 in flight ≤ 300 MB', measured: mb(peak), met: peak <= 300 * MB });
  }
}
