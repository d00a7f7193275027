/**
 * bench/RESULTS.md: the current run (machine, command, date, what changed, tables) between markers,
 * and the run before it under "Previous run". The medians of the current run ride along in an HTML
 * comment so the next run can say how each row moved.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { execFileSync } from 'node:child_process';

const START = '<!-- current:start -->';
const END = '<!-- current:end -->';
const SOAK_START = '<!-- soak:start -->';
const SOAK_END = '<!-- soak:end -->';
/** Measured trades (memory against throughput), kept by hand between these markers: no run replaces them. */
const TRADES_START = '<!-- trades:start -->';
const TRADES_END = '<!-- trades:end -->';
const DATA = /<!-- bench-data: (\{.*?\}) -->/;

export interface RunInfo {
  command: string;
  startedAt: Date;
  finishedAt: Date;
  loadBefore: number[];
  /** Median time of one 1 KB insert + commit, per storage.synchronous setting. */
  commitMs: { full: number; normal: number };
  settings: string;
  note?: string;
  body: string;
  data: Record<string, number>;
}

export function writeResults(path: string, run: RunInfo): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const previous = between(text, START, END);
  const current = [
    `## Run of ${run.startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
    '',
    machine(run),
    '',
    '**What changed since the last run:** ' + changes(previous, run),
    '',
    run.body,
    '',
    `<!-- bench-data: ${JSON.stringify({ commit: commit(), rows: run.data })} -->`,
  ].join('\n');
  writeFile(path, text, current, previous, between(text, SOAK_START, SOAK_END));
}

/** Replaces the soak section (`npm run bench -- --soak`), keeping the last throughput run. */
export function writeSoak(path: string, run: Omit<RunInfo, 'data' | 'commitMs' | 'settings'>): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const current = between(text, START, END);
  const previous = current === undefined ? undefined : between(text.slice(text.indexOf(END) + END.length), '## Previous run', '\u0000');
  const soak = [
    `## Soak of ${run.startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
    '',
    `- Node ${process.version}; git ${commit()}; command \`${run.command}\``,
    `- Load average (1/5/15 min) before: ${run.loadBefore.map((x) => x.toFixed(2)).join(' / ')}; after: ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`,
    ...(run.note === undefined ? [] : [`- ${run.note}`]),
    '',
    run.body,
  ].join('\n');
  writeFile(path, text, current ?? '', previous, soak);
}

function writeFile(path: string, text: string, current: string, previous: string | undefined, soak: string | undefined): void {
  const parts = ['# Hookgate benchmark results', '', 'Written by `npm run bench` (bench/run.ts); see docs/performance.md for how to read it.', '', START, current, END];
  if (soak !== undefined) parts.push('', SOAK_START, soak, SOAK_END);
  const trades = between(text, TRADES_START, TRADES_END);
  if (trades !== undefined) parts.push('', TRADES_START, trades, TRADES_END);
  if (previous !== undefined) parts.push('', '## Previous run', '', previous.replace(/^## Run of/m, '#### Run of').replace(/^### /gm, '#### '));
  writeFileSync(path, parts.join('\n') + '\n');
}

/** The text between two markers (to the end when `end` is absent), or undefined without `start`. */
function between(text: string, start: string, end: string): string | undefined {
  const from = text.indexOf(start);
  if (from < 0) return undefined;
  const to = text.indexOf(end, from + start.length);
  return text.slice(from + start.length, to < 0 ? undefined : to).trim();
}

function machine(run: RunInfo): string {
  const model = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  const minutes = ((run.finishedAt.getTime() - run.startedAt.getTime()) / 60_000).toFixed(1);
  return [
    `- Machine: ${cpus().length} cores, ${model.trim()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux ${release()}`,
    `- Disk: one 1 KB insert + commit (SQLite WAL) takes ${run.commitMs.full.toFixed(2)} ms with synchronous FULL (fsync), ${run.commitMs.normal.toFixed(3)} ms with NORMAL (median of 200)`,
    `- Node ${process.version}; git ${commit()}`,
    `- Command: \`${run.command}\` (took ${minutes} min)`,
    `- Load average (1/5/15 min) before: ${load(run.loadBefore)}; after: ${load(loadavg())}${run.loadBefore[0] !== undefined && run.loadBefore[0] > 1 ? ' — the machine was shared with other work; treat absolute numbers as noisy, the ratios less so' : ''}`,
    `- ${run.settings}`,
  ].join('\n');
}

function changes(previous: string | undefined, run: RunInfo): string {
  const note = run.note === undefined ? '' : `${run.note} `;
  const match = previous === undefined ? null : DATA.exec(previous);
  if (match === null) return `${note}First run: nothing to compare with.`;
  const before = JSON.parse(match[1] as string) as { commit: string; rows: Record<string, number> };
  const moved = Object.entries(run.data)
    .filter(([key]) => before.rows[key] !== undefined)
    .map(([key, value]) => `${key} ${signed(value / (before.rows[key] as number) - 1)}`);
  return `${note}Previous run at git ${before.commit}, this one at ${commit()}. Hookgate req/s against it: ${moved.join(', ') || 'no common rows'}.`;
}

function signed(fraction: number): string {
  const pct = Math.round(fraction * 100);
  return `${pct >= 0 ? '+' : ''}${pct}%`;
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return `${head}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}
