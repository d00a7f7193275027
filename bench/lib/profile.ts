/**
 * Reads a V8 .cpuprofile (written by `node --cpu-prof`) and ranks functions by self time: the time
 * samples spent in the function itself, not in what it called.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
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
    const where = location(frame.url, root);
    const key = `${shorten(frame.functionName || '(anonymous)')} ${where}${frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : ''}`;
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
