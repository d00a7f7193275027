/**
 * The soak's mixed load (bench/lib/soak.ts: wake, agent with echo runs executing, template and
 * transform mapping, a quarter of the rate each, a 30 s heartbeat) against one `soak` server, with
 * what explains its memory and tail latency: the CPU of a request split by thread, the server's
 * event-loop delay and GC pauses (bench/lib/loop-watch.mjs, preloaded), the peaks of the server and
 * of the sandbox workers, and optionally a CPU profile of the load (--cpu-prof) summarised by self time.
 *
 *   node --import tsx bench/soak-profile.ts [seconds=120] [rate=300] [--cpu-prof] [--label X] [--synchronous normal] [--rows wake-1k,agent-1k,…] [--bursts]
 *
 * The load is paced evenly (bench/lib/paced-load.ts); --bursts drives it with autocannon's rate
 * instead (each second's requests sent at its start, as the soak did before).
 *
 * HOOKGATE_NODE_FLAGS works as for bench/memory.ts. Run `npm run build` first.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createChildRegistry, descendants } from './lib/processes.js';
import { startHookgate } from './lib/servers.js';
import { allRows, type Row } from './lib/plan.js';
import { measureTogether } from './lib/load.js';
import { measurePaced } from './lib/paced-load.js';
import { perRequest, threadCpu } from './lib/threads.js';
import { summariseProfile } from './lib/profile.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MB = 2 ** 20;
const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'cpu-prof': { type: 'boolean', default: false }, label: { type: 'string', default: '' }, synchronous: { type: 'string', default: 'full' }, rows: { type: 'string', default: 'wake-1k,agent-1k,template-1k,transform-1k' }, bursts: { type: 'boolean', default: false } } });
const seconds = Number(positionals[0] ?? 120);
const rate = Number(positionals[1] ?? 300);
const KINDS = values.rows.split(',');
const tmp = mkdtempSync(join(tmpdir(), 'hookgate-soak-profile-'));
const children = createChildRegistry();
const loopOut = join(tmp, 'loop.jsonl');
process.env['LOOP_WATCH_OUT'] = loopOut;

function vmRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024;
}

/** Bytes the process tree wrote (to the page cache: SQLite's WAL and database files) and asked to write to the disk. */
function written(pid: number): { wchar: number; writeBytes: number } {
  let wchar = 0;
  let writeBytes = 0;
  for (const p of descendants(pid)) {
    try {
      const io = readFileSync(`/proc/${p}/io`, 'utf8');
      wchar += Number(/^wchar:\s+(\d+)/m.exec(io)?.[1] ?? 0);
      writeBytes += Number(/^write_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // ended meanwhile
    }
  }
  return { wchar, writeBytes };
}

function loads(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

try {
  const profDir = join(tmp, 'prof');
  mkdirSync(profDir);
  const heapFlags = (process.env['HOOKGATE_NODE_FLAGS'] ?? '').split(' ').filter((f) => f !== '');
  const nodeFlags = ['--import', fileURLToPath(new URL('./lib/loop-watch.mjs', import.meta.url)), ...heapFlags];
  const server = await startHookgate(children, tmp, { kind: 'soak', synchronous: values.synchronous === 'normal' ? 'normal' : 'full', label: 'profile', nodeFlags, ...(values['cpu-prof'] ? { cpuProfDir: profDir } : {}) });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const loadBefore = loads();
  const idle = server.rss();
  const rows = KINDS.map((id) => allRows().find((r) => r.id === id) as Row);
  const peak = { tree: 0, server: 0, workers: 0 };
  const startedAt = Date.now();
  let lastCount = descendants(server.pid).length - 1;
  const workerCounts: string[] = [`idle: ${lastCount}`];
  const sampler = setInterval(() => {
    let serverRss = 0;
    let workers = 0;
    const count = descendants(server.pid).length - 1;
    if (count !== lastCount) {
      workerCounts.push(`${((Date.now() - startedAt) / 1000).toFixed(1)} s: ${count}`);
      lastCount = count;
    }
    for (const pid of descendants(server.pid)) {
      try {
        if (pid === server.pid) serverRss = vmRss(pid);
        else workers += vmRss(pid);
      } catch {
        // ended meanwhile
      }
    }
    peak.tree = Math.max(peak.tree, serverRss + workers);
    peak.server = Math.max(peak.server, serverRss);
    peak.workers = Math.max(peak.workers, workers);
  }, 250);
  const cpuBefore = threadCpu(server.pid);
  const ioBefore = written(server.pid);
  const from = Number(process.hrtime.bigint() / 1000n);
  const drive = values.bursts ? measureTogether : measurePaced;
  const { samples, cpuUsPerRequest } = await drive(server, rows, { durationSeconds: seconds, connections: 8, totalRate: rate });
  const to = Number(process.hrtime.bigint() / 1000n);
  const endedAt = Date.now();
  const cpuAfter = threadCpu(server.pid);
  const ioAfter = written(server.pid);
  clearInterval(sampler);
  const responses = samples.reduce((s, x) => s + x.responses, 0);
  await new Promise((resolve) => setTimeout(resolve, 5200));
  await server.stop();
  console.log(`soak-profile ${values.label} ${seconds} s at ${rate} req/s; load before ${loadBefore}, after ${loads()}`);
  console.log(`  req/s ${samples.map((s) => s.rps.toFixed(0)).join(', ')}; p50 ${samples.map((s) => s.p50).join(', ')}; p99 ${samples.map((s) => s.p99).join(', ')} ms; failures ${samples.map((s) => s.failures).join(', ')}`);
  console.log(`  RSS idle ${(idle / MB).toFixed(0)} MB; peak tree ${(peak.tree / MB).toFixed(0)} (server ${(peak.server / MB).toFixed(0)}, workers ${(peak.workers / MB).toFixed(0)}); CPU ${cpuUsPerRequest.toFixed(0)} µs/req`);
  console.log(`  sandbox workers running (from the load's start): ${workerCounts.join(', ')}`);
  console.log(`  written: ${((ioAfter.wchar - ioBefore.wchar) / responses / 1024).toFixed(1)} KB per request (${((ioAfter.wchar - ioBefore.wchar) / MB / seconds).toFixed(1)} MB/s), to the disk ${((ioAfter.writeBytes - ioBefore.writeBytes) / MB / seconds).toFixed(1)} MB/s`);
  console.log(`  by thread (µs/req): ${perRequest(cpuBefore, cpuAfter, responses).map(([k, us]) => `${k} ${us.toFixed(0)}`).join('; ')}`);
  const lines = existsSync(loopOut) ? readFileSync(loopOut, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { at: number; loop: { p99: number; max: number; mean: number }; gc: Record<string, { count: number; ms: number; maxMs: number }>; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; rss: number; spaces?: Record<string, number>; workerHeap?: number; served?: { n: number; p50: number; p99: number; max: number } }) : [];
  const during = lines.filter((l) => l.at > startedAt + 5000 && l.at <= endedAt + 5000);
  const gc: Record<string, { count: number; ms: number; maxMs: number }> = {};
  for (const l of during) for (const [kind, g] of Object.entries(l.gc)) {
    const t = (gc[kind] ??= { count: 0, ms: 0, maxMs: 0 });
    t.count += g.count;
    t.ms += g.ms;
    t.maxMs = Math.max(t.maxMs, g.maxMs);
  }
  const p99s = during.map((l) => l.loop.p99).sort((a, b) => a - b);
  console.log(`  event-loop delay per 5 s: p99 median ${(p99s[Math.floor(p99s.length / 2)] ?? NaN).toFixed(1)} ms, worst ${Math.max(...p99s).toFixed(1)}; max ${Math.max(...during.map((l) => l.loop.max)).toFixed(0)} ms; mean ${(during.reduce((s, l) => s + l.loop.mean, 0) / Math.max(1, during.length)).toFixed(2)} ms`);
  const servedP99 = during.map((l) => l.served?.p99 ?? NaN).sort((a, b) => a - b);
  console.log(`  in the server (request event → response end) per 5 s: p50 median ${(during.map((l) => l.served?.p50 ?? NaN).sort((a, b) => a - b)[Math.floor(during.length / 2)] ?? NaN).toFixed(1)} ms; p99 median ${(servedP99[Math.floor(servedP99.length / 2)] ?? NaN).toFixed(1)}, worst ${Math.max(...servedP99).toFixed(1)}; max ${Math.max(...during.map((l) => l.served?.max ?? 0)).toFixed(0)} ms`);
  console.log(`  GC on the main thread over the load: ${Object.entries(gc).map(([k, g]) => `${k} ${g.count}× ${g.ms.toFixed(0)} ms (max ${g.maxMs.toFixed(1)})`).join('; ')}`);
  const top = during.reduce<(typeof during)[number] | undefined>((best, l) => (best === undefined || l.rss > best.rss ? l : best), undefined);
  if (top?.spaces !== undefined) console.log(`  at the server's highest RSS sample (${(top.rss / MB).toFixed(0)} MB): heap spaces (physical MB) ${Object.entries(top.spaces).filter(([, mb]) => mb > 0).map(([k, mb]) => `${k} ${mb}`).join(', ')}; writer thread's heap ${((top.workerHeap ?? 0) / MB).toFixed(0)} MB`);
  const last = during.at(-1);
  if (last !== undefined) console.log(`  heap at the end: used ${(last.heapUsed / MB).toFixed(0)} MB of ${(last.heapTotal / MB).toFixed(0)}, external ${(last.external / MB).toFixed(0)}, arrayBuffers ${(last.arrayBuffers / MB).toFixed(0)}`);
  if (values['cpu-prof']) {
    const files = readdirSync(profDir).filter((name) => name.includes(`.${server.pid}.`) && name.endsWith('.cpuprofile'));
    for (const name of files) {
      const summary = summariseProfile(join(profDir, name), ROOT, [from, to], 40);
      const perReq = (ms: number) => ((ms * 1000) / Math.max(1, responses)).toFixed(1);
      console.log(`\n  thread ${name.split('.').at(-3)}: ${summary.totalMs.toFixed(0)} ms of samples, ${perReq(summary.totalMs)} µs per request`);
      for (const t of summary.byArea.slice(0, 15)) console.log(`    area ${t.name.padEnd(28)} ${t.ms.toFixed(0).padStart(7)} ms ${(t.share * 100).toFixed(1).padStart(5)}% ${perReq(t.ms)} µs/req`);
      for (const t of summary.top) console.log(`    ${t.name.slice(0, 90).padEnd(90)} ${t.ms.toFixed(0).padStart(7)} ms ${(t.share * 100).toFixed(1).padStart(5)}% ${perReq(t.ms)} µs/req`);
    }
  }
} finally {
  children.killAll();
  if (process.env['KEEP_TMP'] === undefined) rmSync(tmp, { recursive: true, force: true });
  else console.log(`kept ${tmp}`);
}
