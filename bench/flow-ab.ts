/**
 * The flow-control rows against the plain template row on ONE server, in alternation: rows run one
 * after the other with a fresh server each (`npm run bench`) drift apart by ±25 % on a shared VM,
 * more than the 10 % their targets are about. Here one `core` server takes short loads in ABBA
 * order (plain, variant, variant, plain, …), so drift and the growing SQLite file hit both sides
 * alike; each pair gives a ratio, and the median of the pairs is reported.
 *
 *   node --import tsx bench/flow-ab.ts                      # filter, debounce, rateLimit; 8 pairs of 2 s
 *   node --import tsx bench/flow-ab.ts template-1k-ratelimit 12 2
 *
 * Arguments: row ids (comma-separated; default the three flow-control rows), pairs, seconds per load.
 * Run `npm run build` first: bin/hookgate.js runs the sources when dist/ is older than them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChildRegistry } from './lib/processes.js';
import { startHookgate } from './lib/servers.js';
import { allRows, type Row } from './lib/plan.js';
import { measure, type Sample } from './lib/load.js';
import { median } from './lib/stats.js';

const [rowArg, pairsArg, secondsArg] = process.argv.slice(2);
const variants = (rowArg ?? 'template-filter-1k,template-debounce-1k,template-1k-ratelimit').split(',');
const pairs = Number(pairsArg ?? 8);
const seconds = Number(secondsArg ?? 2);
const CONNECTIONS = 32;

function rowOf(id: string): Row {
  const row = allRows().find((candidate) => candidate.id === id);
  if (row === undefined || row.config !== 'core') throw new Error(`unknown core row ${id}`);
  return row;
}

const children = createChildRegistry();
const tmp = mkdtempSync(join(tmpdir(), 'hookgate-flow-ab-'));
process.on('exit', () => children.killAll());
try {
  const plain = rowOf('template-1k');
  for (const id of variants) {
    const variant = rowOf(id);
    const server = await startHookgate(children, tmp, { kind: 'core', synchronous: 'full', label: `ab-${id}` });
    const drive = (row: Row): Promise<Sample> =>
      measure(server.url, { path: row.path, body: row.body, headers: row.headers, durationSeconds: seconds, connections: CONNECTIONS }, () => server.cpuMs());
    await drive(plain); // warm-up, not counted
    const rates: number[] = [];
    const cpus: number[] = [];
    for (let pair = 0; pair < pairs; pair += 1) {
      const first = pair % 2 === 0 ? plain : variant;
      const samples = new Map<string, Sample>();
      samples.set(first.id, await drive(first));
      const second = first === plain ? variant : plain;
      samples.set(second.id, await drive(second));
      const [a, b] = [samples.get(plain.id) as Sample, samples.get(variant.id) as Sample];
      if (a.failures + b.failures > 0) throw new Error(`failures: ${a.statuses} / ${b.statuses}`);
      rates.push(b.rps / a.rps);
      cpus.push(b.cpuUsPerRequest / a.cpuUsPerRequest);
      console.log(`  ${id} pair ${pair + 1}: ${Math.round(a.rps)} vs ${Math.round(b.rps)} req/s, ${Math.round(a.cpuUsPerRequest)} vs ${Math.round(b.cpuUsPerRequest)} µs/req`);
    }
    await server.stop();
    const spread = [...rates].sort((x, y) => x - y);
    console.log(
      `${id} ÷ template-1k: req/s ${median(rates).toFixed(2)} × (pairs ${spread[0]?.toFixed(2)}–${spread.at(-1)?.toFixed(2)}), CPU per request ${median(cpus).toFixed(2)} ×`,
    );
  }
} finally {
  children.killAll();
  rmSync(tmp, { recursive: true, force: true });
}
