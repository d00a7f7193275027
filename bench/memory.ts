/**
 * Where a Hookgate configuration's memory goes: starts `node bin/hookgate.js serve` with one of the
 * bench configurations (bench/lib/configs.ts) and prints each process of its tree (server, sandbox
 * workers) with RSS and its anonymous part (RssAnon; the rest is file-backed, mostly the `node`
 * executable's code), idle and, optionally, after a load, with the peak of the tree, the peak of
 * each role (the server alone, the workers together) and the tree's CPU per request. A fixed rate
 * keeps memory and CPU comparable on a busy machine; rate 0 drives flat out, as `npm run bench`'s
 * rows do (their "RSS peak under load" and "256 KB bodies, 32 in flight" targets).
 *
 *   node --import tsx bench/memory.ts transform-50
 *   node --import tsx bench/memory.ts transform-1 transform-1k,transform-64k 10 0 32
 *   node --import tsx bench/memory.ts core wake-256k 10 0 32
 *   node --import tsx bench/memory.ts soak wake-1k,agent-1k,template-1k,transform-1k 150 300
 *   HOOKGATE_NODE_FLAGS=--max-semi-space-size=4 node --import tsx bench/memory.ts core wake-256k 20 20
 *
 * Arguments: config kind, row ids (bench/lib/plan.ts; the rows share the rate and run at the same
 * time), seconds, total req/s (0: flat out), connections per row (default 8). Loads of 60 s or
 * more print the tree's RSS every 30 s and its slope over the second half (as the soak does).
 * Run `npm run build` first: bin/hookgate.js runs the sources when dist/ is older than them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChildRegistry, descendants } from './lib/processes.js';
import { startHookgate } from './lib/servers.js';
import { allRows } from './lib/plan.js';
import { measureTogether } from './lib/load.js';
import { rssTrend } from './lib/soak.js';
import type { ConfigKind } from './lib/configs.js';

const MB = 2 ** 20;
const [kind = 'transform-1', rowList = '', secondsArg = '0', rateArg = '100', connectionsArg = '8'] = process.argv.slice(2);
const rows = rowList.split(',').filter((id) => id !== '').map((id) => {
  const row = allRows().find((r) => r.id === id);
  if (row === undefined) throw new Error(`no row ${id}`);
  return row;
});
const seconds = Number(secondsArg);
const rate = Number(rateArg);
const connections = Number(connectionsArg);
const tmp = mkdtempSync(join(tmpdir(), 'hookgate-memory-'));
const children = createChildRegistry();

function statusKb(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
}

function statusMb(pid: number, field: string): string {
  return (statusKb(pid, field) / 1024).toFixed(0);
}

function show(root: number, when: string): void {
  const parts: string[] = [];
  for (const pid of descendants(root)) {
    try {
      parts.push(`${pid === root ? 'server' : `worker ${pid}`} ${statusMb(pid, 'VmRSS')} MB (anon ${statusMb(pid, 'RssAnon')})`);
    } catch {
      // ended meanwhile
    }
  }
  console.log(`${when.padEnd(10)} ${parts.join(' | ')}`);
}

/** RSS of the server process alone and of its descendants together, in bytes (0 for one ended meanwhile). */
function roles(root: number): { server: number; workers: number } {
  let server = 0;
  let workers = 0;
  for (const pid of descendants(root)) {
    try {
      const bytes = statusKb(pid, 'VmRSS') * 1024;
      if (pid === root) server = bytes;
      else workers += bytes;
    } catch {
      // ended meanwhile
    }
  }
  return { server, workers };
}

try {
  const nodeFlags = (process.env['HOOKGATE_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
  const server = await startHookgate(children, tmp, { kind: kind as ConfigKind, synchronous: 'full', label: 'memory', nodeFlags });
  // CPU until ready moves far less than the wall time when other work shares the cores.
  const cpuAtReady = server.cpuMs();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  console.log(`start → ready ${server.readyMs.toFixed(0)} ms (CPU ${cpuAtReady.toFixed(0)} ms)`);
  show(server.pid, 'idle');
  if (seconds > 0 && rows.length > 0) {
    const peak = { tree: server.rss(), server: 0, workers: 0 };
    const started = performance.now();
    const trace: Array<[number, number]> = [[0, peak.tree]];
    const sampler = setInterval(() => {
      const now = roles(server.pid);
      peak.tree = Math.max(peak.tree, now.server + now.workers);
      peak.server = Math.max(peak.server, now.server);
      peak.workers = Math.max(peak.workers, now.workers);
      const at = Math.round((performance.now() - started) / 1000);
      if (seconds >= 60 && at >= trace.length * 30) {
        trace.push([at, now.server + now.workers]);
        console.log(`${`${at} s`.padEnd(10)} tree ${((now.server + now.workers) / MB).toFixed(0)} MB: server ${(now.server / MB).toFixed(0)}, workers ${(now.workers / MB).toFixed(0)} (peak ${(peak.tree / MB).toFixed(0)})`);
      }
    }, 250);
    const { samples, cpuUsPerRequest } = await measureTogether(server, rows, { durationSeconds: seconds, connections, totalRate: rate });
    clearInterval(sampler);
    show(server.pid, 'after load');
    console.log(
      `peak of the tree ${(peak.tree / MB).toFixed(0)} MB (server alone ${(peak.server / MB).toFixed(0)}, workers together ${(peak.workers / MB).toFixed(0)}); ` +
        `req/s ${samples.map((s) => s.rps.toFixed(0)).join(', ')}; p99 ${samples.map((s) => s.p99).join(', ')} ms; ` +
        `CPU ${cpuUsPerRequest.toFixed(0)} µs per request; failures ${samples.map((s) => s.failures).join(', ')}`,
    );
    if (trace.length >= 4) console.log(`RSS slope over the second half: ${rssTrend(trace).toFixed(1)} MB/min`);
  }
  await server.stop();
} finally {
  children.killAll();
  rmSync(tmp, { recursive: true, force: true });
}
