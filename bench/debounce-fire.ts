/**
 * Firing a large `keep: "all"` debounce group (issue 36.3): the sentry-digest recipe's shape, many
 * deliveries of ~200 KB for one key. One process stores the deliveries (SQLite, as joins commit
 * them); a fresh process with the service's heap flags then fires every due group, as the service
 * does after a restart, and reports the longest event-loop block, its peak RSS and how long firing
 * took.
 *
 *   node --import tsx bench/debounce-fire.ts [members] [member KB] [unbounded|bounded]
 *
 * `unbounded` (default): one group holding every delivery, as a version without the group bounds
 * stored it; `bounded`: the joins under the default bounds (debounce.maxDeliveries, maxBytes).
 * Defaults: 1500 members of 200 KB. The subcommands `populate <path> <members> <kb> <mode>` and
 * `fire <path>` run one step alone (e.g. populate with another checkout's code, fire with this one).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDebounceFirer } from '../src/admission/debounce.js';
import { sealAction } from '../src/actions/seal.js';
import type { AdmittedAction } from '../src/actions/types.js';
import { silentLogger } from '../src/log.js';
import type { DebounceJoin } from '../src/store/debounce-port.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';

const SERVER_HEAP_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=1024'];
const BATCH = 20;
const logger = silentLogger();
const open = (path: string) => openSqliteStore({ path, synchronous: 'normal' }, { logger, idempotencyTtlMs: 3_600_000, role: 'service' });

function sentryEvent(message: string): AdmittedAction {
  return {
    kind: 'agent',
    runId: crypto.randomUUID(),
    message,
    name: 'Sentry',
    sessionKey: `hook:${crypto.randomUUID()}`,
    wakeMode: 'now',
    deliver: false,
    channel: 'log',
    origin: { hook: 'sentry', mappingId: 'sentry-digest' },
    envelope: { source: 'Webhook' },
  };
}

async function populate(path: string, members: number, kb: number, mode: string): Promise<void> {
  const store = open(path);
  const at = Date.now() - 700_000; // every group is due once the joins are done
  const unbounded = mode === 'unbounded';
  const joinOf = (index: number): DebounceJoin => {
    const action = sentryEvent(`Sentry event ${index}: ${'x'.repeat(kb * 1000)}`);
    const bounds = unbounded ? { maxDeliveries: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER } : {};
    // Joins without the bound fields are what a version without them stored; the bounded mode takes the defaults.
    return { mappingId: 'sentry-digest', key: 'issue-1', action, windowMs: 600_000, maxWaitMs: 600_000, keep: 'all', maxChars: 8000, maxDeliveries: 1000, maxBytes: 16 * 2 ** 20, ...bounds };
  };
  for (let start = 0; start < members; start += BATCH) {
    await store.debounce.join({ joins: Array.from({ length: Math.min(BATCH, members - start) }, (_, offset) => joinOf(start + offset)) }, at);
  }
  console.log(`stored ${members} deliveries of ${kb} KB (${mode}) in ${(await store.debounce.listOpen(10_000)).length} group(s)`);
  await store.close();
}

async function fire(path: string): Promise<void> {
  const started = performance.now();
  const store = open(path);
  const openedMs = performance.now() - started;
  const groups = await store.debounce.countOpen();
  // As in a service that has run a while: the lazily loaded modules and the envelope's tables are there.
  sealAction(sentryEvent('warm-up'));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssBefore = process.memoryUsage().rss;
  const loop = loopBlocks();
  const firing = performance.now();
  const firer = createDebounceFirer({ debounce: store.debounce, ingress: store.ingress, owner: 'bench', logger, pollMs: 20 });
  firer.start();
  while ((await store.debounce.countOpen()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await firer.stop();
  const firedMs = performance.now() - firing;
  const blocks = loop.stop();
  const runs = (await store.runs.countByStatus()).queued;
  await store.close();
  const mb = (bytes: number): string => `${Math.round(bytes / 2 ** 20)} MB`;
  console.log(
    JSON.stringify({
      groups,
      runs,
      openMs: Math.round(openedMs),
      fireMs: Math.round(firedMs),
      ...blocks,
      rssBefore: mb(rssBefore),
      rssPeak: mb(process.resourceUsage().maxRSS * 1024),
    }),
  );
}

/** This thread's time on a core and waiting for one (ns), from the kernel's scheduler statistics. */
function schedStat(): { onCpu: number; waiting: number } {
  const [onCpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
  return { onCpu: onCpu ?? 0, waiting: waiting ?? 0 };
}

/**
 * The event loop's longest turns while firing: a 1 ms timer's gaps, each split into the main
 * thread's time on a core (the code's work), time waiting for a core (the machine is shared), and
 * the rest (blocked in I/O). What firing itself costs the loop is a gap less its wait for a core.
 */
function loopBlocks(): { stop(): Record<string, number> } {
  let wall = performance.now();
  let sched = schedStat();
  const gaps: Array<{ wallMs: number; cpuMs: number; waitMs: number }> = [];
  const timer = setInterval(() => {
    const nowWall = performance.now();
    const nowSched = schedStat();
    gaps.push({ wallMs: nowWall - wall, cpuMs: (nowSched.onCpu - sched.onCpu) / 1e6, waitMs: (nowSched.waiting - sched.waiting) / 1e6 });
    wall = nowWall;
    sched = nowSched;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      const longest = gaps.reduce((a, b) => (b.wallMs > a.wallMs ? b : a), { wallMs: 0, cpuMs: 0, waitMs: 0 });
      const own = gaps.reduce((a, b) => (b.wallMs - b.waitMs > a.wallMs - a.waitMs ? b : a), { wallMs: 0, cpuMs: 0, waitMs: 0 });
      return {
        longestGapMs: Math.round(longest.wallMs),
        itsCpuMs: Math.round(longest.cpuMs),
        itsWaitForCoreMs: Math.round(longest.waitMs),
        longestGapLessCoreWaitMs: Math.round(own.wallMs - own.waitMs),
        itsOwnCpuMs: Math.round(own.cpuMs),
      };
    },
  };
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'populate') await populate(rest[0] as string, Number(rest[1]), Number(rest[2]), rest[3] ?? 'unbounded');
else if (command === 'fire') await fire(rest[0] as string);
else {
  const members = Number(command ?? 1500);
  const kb = Number(rest[0] ?? 200);
  const mode = rest[1] ?? 'unbounded';
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-debounce-fire-'));
  const self = fileURLToPath(import.meta.url);
  try {
    const path = join(dir, 'store.sqlite');
    await populate(path, members, kb, mode);
    const child = spawnSync(process.execPath, [...SERVER_HEAP_FLAGS, '--import', 'tsx', self, 'fire', path], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
    if (child.status !== 0) console.log(`firing process exited with ${child.status ?? child.signal}: ${child.stderr.split('\n').filter((line) => /FATAL|heap limit|Error/.test(line)).slice(0, 3).join(' | ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
