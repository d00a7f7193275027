/**
 * CPU time of a server's process tree split by thread kind, from /proc/<pid>/task/<tid>/stat
 * (utime + stime of each thread): where the CPU of one request goes, for Hookgate and for the Koa
 * floor alike. A sandbox worker is a child process: all its threads count as "sandbox workers".
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Milliseconds of CPU per thread kind. */
export type ThreadCpu = Map<string, number>;

const TICKS_PER_SECOND = 100; // USER_HZ: what /proc/<pid>/stat counts in on Linux

/** Names as the kernel shows them (comm is cut at 15 characters) → what the thread does. */
function kindOf(name: string, isMain: boolean, inChild: boolean): string {
  if (inChild) return 'sandbox workers (child processes)';
  if (isMain) return 'main thread (event loop)';
  if (name.startsWith('hookgate-store')) return 'store writer thread';
  if (name === 'V8Worker') return 'V8 helper threads (GC, compiler)';
  if (name.startsWith('libuv-worker')) return 'libuv pool (fs, crypto, dns)';
  return `other threads (${name})`;
}

export function threadCpu(pid: number): ThreadCpu {
  const cpu: ThreadCpu = new Map();
  const visit = (process: number, inChild: boolean): void => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${process}/task`);
    } catch {
      return; // it ended while we looked
    }
    for (const tid of tasks) {
      try {
        const stat = readFileSync(`/proc/${process}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
        const kind = kindOf(name, Number(tid) === process && !inChild, inChild);
        cpu.set(kind, (cpu.get(kind) ?? 0) + ms);
        const children = readFileSync(`/proc/${process}/task/${tid}/children`, 'utf8').trim();
        for (const child of children === '' ? [] : children.split(' ')) visit(Number(child), true);
      } catch {
        // the thread ended while we looked
      }
    }
  };
  visit(pid, false);
  return cpu;
}

/** What each kind spent between two readings, in µs per request. */
export function perRequest(before: ThreadCpu, after: ThreadCpu, requests: number): Array<[string, number]> {
  return [...after.entries()]
    .map(([kind, ms]): [string, number] => [kind, ((ms - (before.get(kind) ?? 0)) * 1000) / Math.max(1, requests)])
    .filter(([, us]) => us > 0)
    .sort((a, b) => b[1] - a[1]);
}
