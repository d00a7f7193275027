/**
 * Child processes under test: started with a known port, ready when GET /readyz answers 200,
 * measured by the RSS of their whole process tree, and always killed — also on errors and Ctrl-C
 * (every live child is tracked so the harness can stop them all on its way out).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';

export interface Server {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn() to the first 200 from /readyz. */
  readonly readyMs: number;
  /** Sum of VmRSS over the process and all its descendants, in bytes. */
  rss(): number;
  /** Sum of Pss over the same processes, in bytes: see treePss. */
  pss(): number;
  /** CPU time (user + system) the process tree has used so far, in ms: see treeCpuMs. */
  cpuMs(): number;
  /** Whether it is still running, and the end of what it wrote to stderr: for reporting failed loads. */
  health(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  port: number;
  /** Default 60 s: a loaded shared machine has taken more than 15 s to start 50 transform modules. */
  readyTimeoutMs?: number;
}

export interface ChildRegistry {
  start(options: StartOptions): Promise<Server>;
  /** SIGKILLs every child still alive (and its descendants): the last resort on errors and signals. */
  killAll(): void;
}

export function createChildRegistry(): ChildRegistry {
  const live = new Set<ChildProcess>();
  return {
    async start(options) {
      const started = performance.now();
      const child = spawn(process.execPath, options.args, {
        env: { ...process.env, ...options.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      live.add(child);
      const stderr: string[] = [];
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.once('exit', () => live.delete(child));
      const url = `http://127.0.0.1:${options.port}`;
      try {
        await waitReady(url, child, options.readyTimeoutMs ?? 60_000);
      } catch (error) {
        killTree(child.pid ?? 0);
        throw new Error(`${options.name} did not start: ${(error as Error).message}\n${stderr.join('').slice(-2000)}`);
      }
      const readyMs = performance.now() - started;
      const pid = child.pid ?? 0;
      return {
        name: options.name,
        url,
        pid,
        readyMs,
        rss: () => treeRss(pid),
        pss: () => treePss(pid),
        cpuMs: () => treeCpuMs(pid),
        health: () =>
          `${child.exitCode === null && child.signalCode === null ? 'running' : `exited (${child.exitCode ?? child.signalCode})`}; stderr: ${stderr.join('').slice(-1500) || '(empty)'}`,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const timer = setTimeout(() => killTree(pid), 15_000);
          await exited;
          clearTimeout(timer);
        },
      };
    },
    killAll() {
      for (const child of live) killTree(child.pid ?? 0);
    },
  };
}

/** A port that was free a moment ago (the child binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited with ${child.exitCode ?? child.signalCode}`);
    if ((await probe(`${url}/readyz`)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`not ready within ${timeoutMs} ms`);
}

function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.setTimeout(1000, () => req.destroy());
    req.end();
  });
}

/** Parent pid of every process, from /proc/<pid>/stat (field 4, after the parenthesised name). */
function parentMap(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

export function descendants(pid: number): number[] {
  const children = parentMap();
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i] as number) ?? []));
  return out;
}

export function treeRss(pid: number): number {
  let total = 0;
  for (const p of descendants(pid)) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      total += Number(match?.[1] ?? 0) * 1024;
    } catch {
      // gone
    }
  }
  return total;
}

/**
 * Sum of the proportional set size (Pss in /proc/<pid>/smaps_rollup) over the tree, in bytes: a page
 * mapped by several processes counts once in all. The sum of VmRSS counts the pages of the `node`
 * executable (~40 MB) in the server and again in each sandbox worker.
 */
export function treePss(pid: number): number {
  let total = 0;
  for (const p of descendants(pid)) {
    try {
      const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      total += Number(match?.[1] ?? 0) * 1024;
    } catch {
      // gone
    }
  }
  return total;
}

const CLOCK_TICKS_PER_SECOND = ticksPerSecond();

function ticksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/**
 * CPU time of a process tree, in ms: utime + stime of every live process under `pid` (a process's
 * /proc/<pid>/stat already sums all its threads: the writer thread, V8's GC helpers, the isolates'
 * threads of a sandbox worker) plus cutime + cstime, the CPU of descendants that exited and were
 * waited for (a recycled sandbox worker). Taken before and after a load, the difference is what the
 * server spent on it, whichever process or thread spent it.
 */
export function treeCpuMs(pid: number): number {
  let ticks = 0;
  for (const p of descendants(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the parenthesised name: utime, stime, cutime, cstime are fields 14-17 (1-based).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      for (const i of [11, 12, 13, 14]) ticks += Number(fields[i] ?? 0);
    } catch {
      // gone
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

function killTree(pid: number): void {
  if (pid === 0) return;
  for (const p of descendants(pid).reverse()) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
