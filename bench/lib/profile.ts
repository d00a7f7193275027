/**
 * Reads a V8 .cpuprofile (written by `node --cpu-prof`) and ranks functions by self time: the time
 * samples spent in the function itself, not in what it called.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  top: SelfTime[];
  /** Self time grouped by where the code lives (a package, node internals, Hookgate's own src/ folders). */
  byArea: SelfTime[];
}

/** window: [from, to] in µs of CLOCK_MONOTONIC (process.hrtime), the clock V8 stamps samples with. */
export function summariseProfile(path: string, root: string, window: [number, number], topN = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < window[0] || at > window[1]) return;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) return;
    total += us;
    const original = originalLocation(frame, root);
    const where = original?.path ?? location(frame.url, root);
    const line = original?.line ?? frame.lineNumber + 1;
    const key = `${shorten(frame.functionName || '(anonymous)')} ${where}${line > 1 ? `:${line}` : ''}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const group = areaOf(frame.functionName, where);
    area.set(group, (area.get(group) ?? 0) + us);
  });
  const rank = (m: Map<string, number>, n: number): SelfTime[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / total }));
  return { totalMs: total / 1000, top: rank(fn, topN), byArea: rank(area, 15) };
}

/** Regular expressions show up under their whole source; the first 60 characters name them well enough. */
function shorten(name: string): string {
  return name.length > 70 ? `${name.slice(0, 60)}…` : name;
}

/**
 * dist/ is a bundle (scripts/build.mjs: the packages `serve` always loads are compiled in, and chunks
 * carry no meaningful names): a frame in it is attributed through the file's source map to the
 * source it came from, `src/http/body.ts` or `node_modules/koa/lib/application.js`.
 */
const sourceMaps = new Map<string, SourceMap | undefined>();

function originalLocation(frame: ProfileNode['callFrame'], root: string): { path: string; line: number } | undefined {
  if (!frame.url.startsWith('file://')) return undefined;
  const file = new URL(frame.url).pathname;
  if (!sourceMaps.has(file)) {
    const mapFile = `${file}.map`;
    sourceMaps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
  }
  const entry = sourceMaps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry === undefined || !('originalSource' in entry) || entry.originalSource === undefined) return undefined;
  const source = entry.originalSource.startsWith('file://') ? new URL(entry.originalSource).pathname : resolve(dirname(file), entry.originalSource);
  return { path: relative(root, source), line: entry.originalLine + 1 };
}

function location(url: string, root: string): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  return path.startsWith('/') ? relative(root, path) : path;
}

function areaOf(functionName: string, where: string): string {
  if (where === '') return functionName.startsWith('(') ? functionName : '(native/builtin)';
  if (where.startsWith('node:')) return `node:${where.slice(5).split('/')[0]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where);
  if (pkg !== null) return pkg[1] as string;
  const own = /^(src\/[^/]+|bin|transforms)/.exec(where);
  return own?.[1] ?? where;
}
