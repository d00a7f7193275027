/**
 * Where a Hookgate configuration's memory goes: starts `node bin/hookgate.js serve` with one of the
 * bench configurations (bench/lib/configs.ts) and prints each process of its tree (server, sandbox
 * workers) with RSS and its anonymous part (RssAnon; the rest is file-backed, mostly the `node`
 * executable's code), idle and, optionally, after a load at a fixed rate, with the peak of the tree
 * and the tree's CPU per request. A fixed rate keeps memory and CPU comparable on a busy machine.
 *
 *   node --import tsx bench/memory.ts transform-50
 *   node --import tsx bench/memory.ts soak wake-1k,agent-1k,template-1k,transform-1k 30 300
 *   HOOKGATE_NODE_FLAGS=--max-semi-space-size=4 node --import tsx bench/memory.ts core wake-256k 20 20
 *
 * Arguments: config kind, row ids (bench/lib/plan.ts; the rows share the rate), seconds, total req/s.
 * Run `npm run build` first: bin/hookgate.js runs the sources when dist/ is older than them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChildRegistry, descendants } from './lib/processes.js';
import { startHookgate } from './lib/servers.js';
import { allRows } from './lib/plan.js';
import { measure } from './lib/load.js';
import type { ConfigKind } from './lib/configs.js';

const MB = 2 ** 20;
const [kind = 'transform-1', rowList = '', secondsArg = '0', rateArg = '100'] = process.argv.slice(2);
const rows = rowList.split(',').filter((id) => id !== '').map((id) => {
  const row = allRows().find((r) => r.id === id);
  if (row === undefined) throw new Error(`no row ${id}`);
  return row;
});
const seconds = Number(secondsArg);
const rate = Number(rateArg);
const tmp = mkdtempSync(join(tmpdir(), 'hookgate-memory-'));
const children = createChildRegistry();

function statusMb(pid: number, field: string): string {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return (Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) / 1024).toFixed(0);
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

try {
  const nodeFlags = (process.env['HOOKGATE_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
  const server = await startHookgate(children, tmp, { kind: kind as ConfigKind, synchronous: 'full', label: 'memory', nodeFlags });
  // CPU until ready moves far less than the wall time when other work shares the cores.
  const cpuAtReady = server.cpuMs();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  console.log(`start → ready ${server.readyMs.toFixed(0)} ms (CPU ${cpuAtReady.toFixed(0)} ms)`);
  show(server.pid, 'idle');
  if (seconds > 0 && rows.length > 0) {
    let peak = server.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 250);
    const cpuBefore = server.cpuMs();
    const samples = await Promise.all(
      rows.map((row) => measure(server.url, { path: row.path, body: row.body, headers: row.headers, durationSeconds: seconds, connections: 8, overallRate: rate / rows.length })),
    );
    clearInterval(sampler);
    const responses = samples.reduce((sum, s) => sum + s.responses, 0);
    show(server.pid, 'after load');
    console.log(
      `peak of the tree ${(peak / MB).toFixed(0)} MB; req/s ${samples.map((s) => s.rps.toFixed(0)).join(', ')}; ` +
        `CPU ${(((server.cpuMs() - cpuBefore) * 1000) / responses).toFixed(0)} µs per request; failures ${samples.map((s) => s.failures).join(', ')}`,
    );
  }
  await server.stop();
} finally {
  children.killAll();
  rmSync(tmp, { recursive: true, force: true });
}
