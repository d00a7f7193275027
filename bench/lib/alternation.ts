/**
 * A variant row against the plain template row on ONE Hookgate server, in ABBA alternation (plain,
 * variant, variant, plain, …): rows run one after the other with a fresh server each drift apart
 * by ±25 % on a shared VM, more than the 10 % the flow-control targets are about. Here drift and
 * the growing SQLite file hit both sides alike; each pair gives a ratio, the median is reported.
 */
import type { ChildRegistry } from './processes.js';
import { startHookgate } from './servers.js';
import { measure, type Sample } from './load.js';
import type { Row } from './plan.js';
import type { Synchronous } from './configs.js';
import { median } from './stats.js';

export interface AlternationOptions {
  pairs: number;
  durationSeconds: number;
  connections: number;
  synchronous: Synchronous;
  tmp: string;
  nodeFlags?: string[];
  log: (line: string) => void;
}

export interface AlternationResult {
  pairs: number;
  /** Median over the pairs of variant req/s ÷ plain req/s, and its lowest and highest pair. */
  rate: number;
  low: number;
  high: number;
  /** Median over the pairs of variant ÷ plain CPU per request. */
  cpu: number;
}

export async function compareInAlternation(children: ChildRegistry, plain: Row, variant: Row, options: AlternationOptions): Promise<AlternationResult> {
  if (plain.config !== variant.config) throw new Error(`${plain.id} and ${variant.id} are served by different configurations`);
  const server = await startHookgate(children, options.tmp, { kind: plain.config, synchronous: options.synchronous, label: `ab-${variant.id}`, nodeFlags: options.nodeFlags ?? [] });
  try {
    const drive = (row: Row): Promise<Sample> =>
      measure(server.url, { path: row.path, body: row.body, headers: row.headers, durationSeconds: options.durationSeconds, connections: options.connections }, () => server.cpuMs());
    await drive(plain); // warm-up, not counted
    const rates: number[] = [];
    const cpus: number[] = [];
    for (let pair = 0; pair < options.pairs; pair += 1) {
      const order = pair % 2 === 0 ? [plain, variant] : [variant, plain];
      const samples = new Map<string, Sample>();
      for (const row of order) samples.set(row.id, await drive(row));
      const [a, b] = [samples.get(plain.id) as Sample, samples.get(variant.id) as Sample];
      if (a.failures + b.failures > 0) throw new Error(`${variant.id} against ${plain.id}: failures ${a.statuses} / ${b.statuses}`);
      rates.push(b.rps / a.rps);
      cpus.push(b.cpuUsPerRequest / a.cpuUsPerRequest);
      options.log(`  ${variant.id} pair ${pair + 1}: ${Math.round(a.rps)} vs ${Math.round(b.rps)} req/s, ${Math.round(a.cpuUsPerRequest)} vs ${Math.round(b.cpuUsPerRequest)} µs/req`);
    }
    return { pairs: options.pairs, rate: median(rates), low: Math.min(...rates), high: Math.max(...rates), cpu: median(cpus) };
  } finally {
    await server.stop();
  }
}
