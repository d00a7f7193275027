import type { Logger } from '../log.js';
import { exponentialDelay } from '../retry.js';
import type { CallReply, FailureReason, InitMessage, LoadMessage, LoadReply, WorkerReply, WorkerStats } from './protocol.js';
import { WorkerProcess, type Serialization } from './worker-process.js';
import { CAN_SAMPLE_RSS, readRss, RSS_CHECK_MS } from './rss.js';

export type ModuleCode = Omit<LoadMessage, 't' | 'id'>;

export interface PoolOptions {
  size: number;
  init: InitMessage;
  logger: Logger;
  serialization?: Serialization;
  /**
   * RSS above which a worker is recycled (transformLimits.workerRssMb); default 256 MiB + the isolate
   * memory limit. Checked on every call's answer and, while calls run, every RSS_CHECK_MS.
   */
  rssCeilingMb?: number;
  /** Sampling period of busy workers' RSS; 0 turns it off (tests of the answer-time check). */
  rssCheckMs?: number;
  /** A worker beyond the first without calls for this long stops (transformLimits.workerIdleSeconds). */
  workerIdleMs?: number;
  /** How often idle workers are looked for; default min(workerIdleMs, 10 s). */
  idleCheckMs?: number;
  /** Clock of the idle time (tests inject one); default performance.now. */
  now?: () => number;
  /** How long calls wait for a full worker before another starts (GROW_AFTER_MS); 0: at once. */
  growAfterMs?: number;
}

export interface WorkerSnapshot extends WorkerStats {
  pid: number;
  rss: number;
}

interface Waiter {
  resolve: (worker: WorkerProcess | undefined) => void;
  timer: NodeJS.Timeout;
  /** When the call started waiting (the pool's clock). */
  since: number;
}

/**
 * Host-side slack of a call past its time limit. The worker answers a timed-out call itself, within
 * timeoutMs + ~200 ms on an idle machine; on a loaded one it may wait that long again for a core.
 * The host deadline is for a worker that cannot answer at all: killing one that is merely slow
 * would also fail its other calls and make the machine busier still with a respawn.
 */
const CALL_GRACE_MS = 2000;
/**
 * Host-side slack of a load past the worker's own load backstop. A load is often a fresh worker's
 * first request: it also waits for the process and isolated-vm to start, which takes seconds on a
 * loaded machine. A worker that is really stuck is still killed; loads are not on the request path.
 */
const LOAD_GRACE_MS = 10_000;
const MAX_QUEUE = 1000;
/**
 * Calls of one module sent ahead to one worker. The worker runs them one after another, each with
 * its own time limit from when it starts; sending ahead hides the IPC round trip between them.
 */
const MODULE_PIPELINE_DEPTH = 4;

const DEFAULT_WORKER_IDLE_MS = 60_000;
/**
 * Calls that find every running worker full wait this long before another worker starts: a burst
 * the running workers clear sooner (a sender opening its connections at once, a worker that lost
 * its core for a moment) starts none. A worker is a ~60 MB process, and with calls filling the first
 * before the next it would stay for as long as a spike now and then reaches it.
 */
const GROW_AFTER_MS = 200;
const STATS_DEADLINE_MS = 5000;

/**
 * Up to `size` supervised sandbox workers. The first starts with the pool; another starts when
 * calls have waited GROW_AFTER_MS, every running worker being full with their module (below), and
 * a worker beyond the first stops after workerIdleMs without calls: an idle service holds one worker (~60 MB), a loaded one
 * all of them. A call for a module goes to the first worker that has
 * the module loaded and fewer than MODULE_PIPELINE_DEPTH of that module's calls already (so a worker
 * beyond the first takes calls only while the first is full, and goes idle after a burst); one module's slow calls never queue another module's calls
 * (each module runs in its own isolate, in turn). A call's host deadline covers the calls of its
 * module ahead of it in that worker. Calls that find every worker full with their module wait at
 * most timeoutMs, then answer `busy` (503).
 */
export class SandboxPool {
  private readonly workers: Array<WorkerProcess | undefined>;
  private readonly retired = new Set<WorkerProcess>();
  private readonly modules = new Map<string, ModuleCode>();
  private readonly queues = new Map<string, Waiter[]>();
  private readonly quickDeaths: number[];
  private readonly options: PoolOptions;
  private readonly rssCeiling: number;
  private closed = false;
  private readonly rssTimer: NodeJS.Timeout | undefined;
  /** Draining: no new calls; closes once `active` (calls in flight or waiting for a worker) is 0. */
  private draining = false;
  private active = 0;
  private onIdle: (() => void) | undefined;
  private idle: Promise<void> | undefined;
  /** When each worker last took a call (the clock of options.now). */
  private readonly lastCallAt = new Map<WorkerProcess, number>();
  private readonly now: () => number;
  private readonly idleTimer: NodeJS.Timeout;
  /** Armed while calls wait for a full worker and the pool may grow (see GROW_AFTER_MS). */
  private growTimer: NodeJS.Timeout | undefined;

  constructor(options: PoolOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
    this.rssCeiling = (options.rssCeilingMb ?? 256 + options.init.memoryMb) * 1024 * 1024;
    this.quickDeaths = Array.from({ length: options.size }, () => 0);
    this.workers = Array.from({ length: options.size }, (_, i) => (i === 0 ? this.spawn(0) : undefined));
    const every = options.rssCheckMs ?? RSS_CHECK_MS;
    this.rssTimer = CAN_SAMPLE_RSS && every > 0 ? setInterval(() => void this.checkBusyRss(), every).unref() : undefined;
    const idleMs = options.workerIdleMs ?? DEFAULT_WORKER_IDLE_MS;
    this.idleTimer = setInterval(() => this.stopIdleWorkers(), options.idleCheckMs ?? Math.min(idleMs, 10_000)).unref();
  }

  /** What every running worker holds (its isolates, their heaps, its RSS); for status, the benchmark and tests. */
  async stats(): Promise<WorkerSnapshot[]> {
    const live = this.workers.filter((w): w is WorkerProcess => w?.usable === true);
    const replies = await Promise.all(live.map((w) => w.request({ t: 'stats' }, STATS_DEADLINE_MS)));
    return replies.flatMap((reply, i) => ('stats' in reply ? [{ pid: (live[i] as WorkerProcess).pid, rss: reply.rss, ...reply.stats }] : []));
  }

  /** Stops the workers beyond the first that took no call for workerIdleMs (and have none in flight). */
  stopIdleWorkers(): void {
    const idleMs = this.options.workerIdleMs ?? DEFAULT_WORKER_IDLE_MS;
    const now = this.now();
    for (let index = 1; index < this.workers.length; index++) {
      const worker = this.workers[index];
      if (worker?.usable !== true || worker.inFlight > 0 || worker.calls.size > 0) continue;
      if (now - (this.lastCallAt.get(worker) ?? now) < idleMs) continue;
      this.options.logger.debug({ event: 'sandbox.idle-stop', pid: worker.pid }, 'stopping an idle sandbox worker');
      this.workers[index] = undefined;
      this.lastCallAt.delete(worker);
      this.retired.add(worker);
      worker.retire();
    }
  }

  /**
   * Starts a worker in the first empty slot, if any; true when one started. It loads only the
   * modules its calls need (50 configured modules need not all be set up for the one that is busy).
   */
  private grow(): boolean {
    const index = this.workers.indexOf(undefined);
    if (index < 0 || this.closed || this.draining) return false;
    this.startIn(index, false);
    return true;
  }

  /** Pids of every live worker process, retiring ones included. */
  pids(): number[] {
    return [...this.workers, ...this.retired].filter((w): w is WorkerProcess => w?.alive === true).map((w) => w.pid);
  }

  /** Loads a module into every worker (so a bad module fails now); answers the first failure, else a success. */
  async load(module: ModuleCode): Promise<LoadReply> {
    this.modules.set(module.key, module);
    const live = this.workers.filter((w): w is WorkerProcess => w?.usable === true);
    const replies = await Promise.all(live.map((w) => this.ensureLoaded(w, module)));
    const failed = replies.find((r) => !r.ok);
    if (failed) this.unload(module.key);
    return (failed ?? replies[0] ?? { t: 'reply', id: 0, ok: false, reason: 'lost', error: 'no sandbox worker', rss: 0 }) as LoadReply;
  }

  unload(key: string): void {
    this.modules.delete(key);
    for (const w of this.workers) {
      if (w?.loaded.delete(key)) w.send({ t: 'unload', key });
    }
  }

  async call(key: string, inputJson: string): Promise<CallReply> {
    if (this.draining) return lost('lost', 'the sandbox pool is being replaced');
    this.active += 1;
    try {
      return await this.dispatch(key, inputJson);
    } finally {
      this.active -= 1;
      if (this.active === 0) this.onIdle?.();
    }
  }

  /**
   * Retires the pool without failing a call: it takes no new calls and closes once the calls it
   * has are answered. Each of them is bounded already (its host deadline, or timeoutMs waiting for
   * a worker), so draining is too.
   */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.active > 0) await (this.idle ??= new Promise<void>((resolve) => (this.onIdle = resolve)));
    await this.close();
  }

  private async dispatch(key: string, inputJson: string): Promise<CallReply> {
    const module = this.modules.get(key);
    if (!module) return lost('not-loaded', 'module is not loaded');
    const worker = await this.acquire(key);
    if (!worker) return lost('busy', 'every sandbox worker is busy with this module');
    try {
      const loaded = await this.ensureLoaded(worker, module);
      if (!loaded.ok) return lost(loaded.reason === 'error' ? 'lost' : loaded.reason, loaded.error);
      // This call and the ones of its module already there run in turn: each may use its whole limit.
      const turns = worker.calls.get(key) ?? 1;
      const reply = await worker.request({ t: 'call', key, inputJson }, turns * (this.options.init.timeoutMs + CALL_GRACE_MS));
      this.inspect(worker, reply, true);
      return reply as CallReply;
    } finally {
      release(worker, key);
      this.pump(key);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.rssTimer);
    clearInterval(this.idleTimer);
    clearTimeout(this.growTimer);
    for (const [key, waiters] of this.queues) {
      this.queues.delete(key);
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.resolve(undefined);
      }
    }
    const all = [...this.workers, ...this.retired].filter((w): w is WorkerProcess => w !== undefined);
    for (const w of all) w.kill();
    await Promise.all(all.map((w) => w.exited));
  }

  private spawn(index: number): WorkerProcess {
    const started = Date.now();
    const worker = new WorkerProcess(this.options.init, this.options.serialization ?? 'json', this.options.logger, (w) => {
      this.retired.delete(w);
      this.lastCallAt.delete(w);
      if (this.closed || this.workers[index] !== w) return;
      this.quickDeaths[index] = Date.now() - started < 2000 ? (this.quickDeaths[index] ?? 0) + 1 : 0;
      this.options.logger.warn({ event: 'sandbox.exit', pid: w.pid }, 'sandbox worker exited; replacing it');
      this.replace(index);
    });
    return worker;
  }

  /** Puts a fresh worker in a slot; a worker that keeps dying at start-up is respawned with backoff. */
  private replace(index: number): void {
    this.workers[index] = undefined;
    // The first respawn is immediate (25 - 25), then 25, 75, 175 … up to ~2 s.
    const delay = exponentialDelay(this.quickDeaths[index] ?? 0, 25, 2000) - 25;
    const start = (): void => {
      if (!this.closed) this.startIn(index, true);
    };
    if (delay <= 0) start();
    else setTimeout(start, delay).unref();
  }

  /** A fresh worker in the slot; waiting calls go to it. `warm`: load every module now (a replacement after a crash). */
  private startIn(index: number, warm: boolean): void {
    const worker = this.spawn(index);
    this.workers[index] = worker;
    this.lastCallAt.set(worker, this.now());
    if (warm) for (const module of this.modules.values()) void this.ensureLoaded(worker, module);
    for (const key of this.queues.keys()) this.pump(key);
  }

  /**
   * Retires a worker that is wedged or, after a call, too big: new calls go to its replacement at
   * once. RSS is judged after calls only, so a ceiling below a fresh worker's size cannot make
   * start-up loads churn workers forever.
   */
  private inspect(worker: WorkerProcess, reply: WorkerReply, afterCall = false): void {
    const wedged = !reply.ok && reply.reason === 'wedged';
    if (!wedged && (!afterCall || reply.rss <= this.rssCeiling)) return;
    const index = this.workers.indexOf(worker);
    if (index < 0) return;
    this.options.logger.warn({ event: 'sandbox.retire', pid: worker.pid, rss: reply.rss, wedged }, 'retiring sandbox worker');
    this.retired.add(worker);
    worker.retire();
    this.replace(index);
  }

  /**
   * Memory outside the isolate heap (a builtin's backing store) is not bounded by the isolate's limit
   * and can grow for seconds before the call's deadline: a busy worker past the ceiling is killed at
   * once (its calls answer 503) and replaced, rather than waiting for an answer that may never come.
   */
  private async checkBusyRss(): Promise<void> {
    // Calls only, as on answers: a ceiling below a fresh worker's size must not churn loads forever.
    const busy = this.workers.filter((w): w is WorkerProcess => w?.usable === true && w.calls.size > 0);
    for (const worker of busy) {
      const rss = await readRss(worker.pid);
      if (rss === undefined || rss <= this.rssCeiling || !worker.usable) continue;
      const index = this.workers.indexOf(worker);
      if (index < 0) continue;
      this.options.logger.warn({ event: 'sandbox.retire', pid: worker.pid, rss, wedged: false, reason: 'rss' }, 'sandbox worker over its RSS ceiling; killing it');
      this.retired.add(worker);
      worker.retire();
      worker.kill();
      this.replace(index);
    }
  }

  private ensureLoaded(worker: WorkerProcess, module: ModuleCode): Promise<WorkerReply> {
    let loading = worker.loaded.get(module.key);
    if (!loading) {
      const deadline = this.options.init.loadTimeoutMs * 3 + LOAD_GRACE_MS;
      loading = worker.request({ t: 'load', ...module }, deadline).then((reply) => {
        if (!reply.ok) worker.loaded.delete(module.key);
        this.inspect(worker, reply);
        return reply;
      });
      worker.loaded.set(module.key, loading);
    }
    return loading;
  }

  /**
   * The first worker, in pool order, with room for another call of the module, one that has it
   * loaded before one that would have to load it. Filling the first worker before the next (rather
   * than spreading calls over all) lets a worker started by a burst go idle once the burst has
   * passed, and stop after workerIdleMs: a steady load that one worker carries keeps one.
   */
  private pick(key: string): WorkerProcess | undefined {
    let unloaded: WorkerProcess | undefined;
    for (const w of this.workers) {
      if (w?.usable !== true || (w.calls.get(key) ?? 0) >= MODULE_PIPELINE_DEPTH) continue;
      if (w.loaded.has(key)) return w;
      unloaded ??= w;
    }
    return unloaded;
  }

  private acquire(key: string): Promise<WorkerProcess | undefined> {
    // Every running worker full with this module: one more worker, if the pool may grow (at once,
    // or once calls have waited GROW_AFTER_MS).
    const growAfterMs = this.options.growAfterMs ?? GROW_AFTER_MS;
    const free = this.pick(key) ?? (growAfterMs === 0 && this.grow() ? this.pick(key) : undefined);
    if (free) {
      this.claim(free, key);
      return Promise.resolve(free);
    }
    const queue = this.queues.get(key) ?? [];
    if (this.closed || queue.length >= MAX_QUEUE) return Promise.resolve(undefined);
    this.queues.set(key, queue);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        since: this.now(),
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          resolve(undefined);
        }, this.options.init.timeoutMs),
      };
      queue.push(waiter);
      this.growLater(growAfterMs);
    });
  }

  /**
   * Starts another worker once a call has waited `afterMs` (and the pool may grow). Checked after
   * the event loop's I/O (setImmediate): when the service itself stalled (a long collection, a slow
   * commit), the replies that arrived meanwhile are taken first, and calls that waited only because
   * nobody read those replies start no worker.
   */
  private growLater(afterMs: number, delayMs = afterMs): void {
    if (this.growTimer !== undefined || !this.workers.includes(undefined)) return;
    this.growTimer = setTimeout(() => {
      setImmediate(() => {
        this.growTimer = undefined;
        if (this.closed) return;
        const oldest = this.oldestWaitSince();
        if (oldest === undefined) return;
        const waited = this.now() - oldest;
        if (waited >= afterMs) this.grow();
        else this.growLater(afterMs, afterMs - waited);
      });
    }, delayMs);
    this.growTimer.unref();
  }

  /** When the call waiting longest started waiting; undefined when none waits. */
  private oldestWaitSince(): number | undefined {
    let oldest: number | undefined;
    for (const queue of this.queues.values()) {
      const first = queue[0];
      if (first !== undefined && (oldest === undefined || first.since < oldest)) oldest = first.since;
    }
    return oldest;
  }

  /** One more call of the module counts against this worker (see MODULE_PIPELINE_DEPTH). */
  private claim(worker: WorkerProcess, key: string): void {
    worker.calls.set(key, (worker.calls.get(key) ?? 0) + 1);
    this.lastCallAt.set(worker, this.now());
  }

  private pump(key: string): void {
    const queue = this.queues.get(key);
    while (queue && queue.length > 0) {
      const worker = this.pick(key);
      if (!worker) return;
      const waiter = queue.shift()!;
      clearTimeout(waiter.timer);
      this.claim(worker, key);
      waiter.resolve(worker);
    }
    this.queues.delete(key);
  }
}

function release(worker: WorkerProcess, key: string): void {
  const left = (worker.calls.get(key) ?? 1) - 1;
  if (left > 0) worker.calls.set(key, left);
  else worker.calls.delete(key);
}

function lost(reason: FailureReason, error: string): CallReply {
  return { t: 'reply', id: 0, ok: false, reason, error, logs: [], rss: 0 };
}
