/**
 * --profile: Hookgate alone under `node --cpu-prof`, one fresh process per row, and the top
 * self-time functions of its main process during the load (start-up excluded), per request.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildRegistry } from './processes.js';
import { measure } from './load.js';
import type { Row } from './plan.js';
import type { Synchronous } from './configs.js';
import { startHookgate } from './servers.js';
import { summariseProfile, type SelfTime } from './profile.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ProfileOptions {
  rows: Row[];
  synchronous: Synchronous;
  durationSeconds: number;
  connections: number;
  tmp: string;
  log: (line: string) => void;
}

export async function profileRows(children: ChildRegistry, options: ProfileOptions): Promise<string> {
  const sections: string[] = [];
  for (const row of options.rows.filter((r) => r.halfRateOf === undefined)) {
    const dir = join(options.tmp, `prof-${row.id}`);
    mkdirSync(dir, { recursive: true });
    const server = await startHookgate(children, options.tmp, { kind: row.config, synchronous: options.synchronous, label: `prof-${row.id}`, cpuProfDir: dir });
    const load = { path: row.path, body: row.body, headers: row.headers, connections: options.connections };
    let requests = 0;
    let window: [number, number];
    try {
      await measure(server.url, { ...load, durationSeconds: 1 });
      const from = microsNow();
      const sample = await measure(server.url, { ...load, durationSeconds: options.durationSeconds });
      window = [from, microsNow()];
      requests = sample.rps * options.durationSeconds;
      options.log(`  profiled ${row.id}: ${sample.rps.toFixed(0)} req/s`);
    } finally {
      await server.stop();
    }
    const file = readdirSync(dir).find((name) => name.includes(`.${server.pid}.`) && name.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`no CPU profile of pid ${server.pid} in ${dir}`);
    sections.push(section(row, summariseProfile(join(dir, file), ROOT, window), requests));
  }
  return sections.join('\n\n');
}

function microsNow(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function section(row: Row, summary: ReturnType<typeof summariseProfile>, requests: number): string {
  const table = (title: string, items: SelfTime[]) =>
    [`| ${title} | self ms | share | µs per request |`, '|---|---:|---:|---:|', ...items.map((t) => `| \`${t.name.replace(/\|/g, '\\|')}\` | ${t.ms.toFixed(0)} | ${(t.share * 100).toFixed(1)}% | ${((t.ms * 1000) / Math.max(1, requests)).toFixed(1)} |`)].join('\n');
  return [
    `### ${row.label} (\`${row.id}\`)`,
    '',
    `${requests.toFixed(0)} requests in the profiled window; ${summary.totalMs.toFixed(0)} ms of main-process samples (idle included as \`(idle)\`), ${((summary.totalMs * 1000) / Math.max(1, requests)).toFixed(0)} µs per request.`,
    '',
    table('area', summary.byArea),
    '',
    table('function', summary.top),
  ].join('\n');
}
