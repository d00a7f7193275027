/**
 * Sandbox worker process entry (forked by worker-process.ts). Holds one isolate per loaded module
 * and answers load/call messages. Runs under Node's own type stripping so it starts fast: only
 * erasable syntax; from the sources its relative imports resolve through bin/source-hooks.js (given
 * as `--import` by worker-process.ts). The guest prelude arrives in the init message.
 */
import ivm from 'isolated-vm';
import type { CallMessage, CallReply, FailureReason, InitMessage, LoadMessage, LoadReply, ParentMessage, StatsReply } from './protocol.js';
import { IsolateLru } from './isolate-lru.js';

/** Slack past the isolate's own timeout before the worker asks whether the isolate stopped. */
const BACKSTOP_MS = 100;
/**
 * CPU time this process may spend after the backstop without the isolate answering a probe before
 * the isolate counts as wedged. CPU, not wall time: on a loaded machine an isolate that is stopping
 * (or idle) may wait long for a core, but only a wedged one keeps computing.
 */
const WEDGED_CPU_MS = 100;
const CPU_POLL_MS = 10;
const TIMED_OUT = Symbol('timed out');

type Failure = { ok: false; reason: FailureReason; error: string };
type Setup = { ok: true; exportName: string; examplesJson: string } | Failure;

interface Slot {
  msg: LoadMessage;
  isolate?: ivm.Isolate;
  context?: ivm.Context;
  call?: ivm.Reference;
  /** The module's calls run one after another: each starts (and its time limit with it) when the previous ended. */
  turn: Promise<unknown>;
}

function settle<T>(promise: Promise<T>, ms: number): Promise<T | Error | typeof TIMED_OUT> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(TIMED_OUT), ms);
    promise.then(
      (value) => { clearTimeout(timer); resolve(value); },
      (error: unknown) => { clearTimeout(timer); resolve(error instanceof Error ? error : new Error(String(error))); },
    );
  });
}

/** CPU time of this process (every thread, the isolates' included), in ms. */
function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Like settle, but gives up only once this process has spent `cpuMs` of CPU time waiting. */
function settleWithinCpu<T>(promise: Promise<T>, cpuMs: number): Promise<T | Error | typeof TIMED_OUT> {
  const start = processCpuMs();
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (processCpuMs() - start >= cpuMs) {
        clearInterval(timer);
        resolve(TIMED_OUT);
      }
    }, CPU_POLL_MS);
    promise.then(
      (value) => { clearInterval(timer); resolve(value); },
      (error: unknown) => { clearInterval(timer); resolve(error instanceof Error ? error : new Error(String(error))); },
    );
  });
}

function limitFailure(error: Error, isolate: ivm.Isolate | undefined): Failure | undefined {
  if (isolate?.isDisposed === true || /memory limit/i.test(error.message)) return { ok: false, reason: 'memory', error: 'memory limit reached' };
  if (/timed out/i.test(error.message)) return { ok: false, reason: 'timeout', error: 'time limit reached' };
  return undefined;
}

/** Heap the isolate holds (total heap plus external memory), or undefined when it is gone. */
function heapOf(slot: Slot): number | undefined {
  if (!slot.isolate || slot.isolate.isDisposed) return undefined;
  try {
    const heap = slot.isolate.getHeapStatisticsSync();
    return heap.total_heap_size + heap.externally_allocated_size;
  } catch {
    return undefined;
  }
}

class IsolateHost {
  private readonly slots = new Map<string, Slot>();
  private readonly init: InitMessage;
  /** Which isolates to dispose between calls (budget and idle time); a disposed module's next call re-creates its isolate. */
  private readonly lru: IsolateLru;
  private loadTurn: Promise<unknown> = Promise.resolve();

  constructor(init: InitMessage) {
    this.init = init;
    this.lru = new IsolateLru({ budgetBytes: init.isolateBudgetMb * 1024 * 1024, idleMs: init.isolateIdleMs, now: () => performance.now() });
    if (init.isolateIdleMs > 0) setInterval(() => this.evict(), Math.min(init.isolateIdleMs, 30_000)).unref();
  }

  stats(id: number): StatsReply {
    let isolates = 0;
    for (const slot of this.slots.values()) if (slot.isolate?.isDisposed === false) isolates += 1;
    const stats = { isolates, isolateHeapBytes: this.lru.heapBytes, workerHeapBytes: process.memoryUsage().heapTotal };
    return { t: 'reply', id, ok: true, stats, rss: process.memoryUsage.rss() };
  }

  /**
   * Loads run one after another: each module's isolate is set up, checked, and (past the budget)
   * the least recently used is disposed before the next is created. Loaded all at once (the
   * mappings compile concurrently), 50 modules would first hold 50 isolates, and the memory V8
   * and malloc keep after disposing them would stay with the worker.
   */
  load(msg: LoadMessage): Promise<LoadReply> {
    const result = this.loadTurn.then(() => this.loadNow(msg));
    this.loadTurn = result.catch(() => undefined);
    return result;
  }

  private async loadNow(msg: LoadMessage): Promise<LoadReply> {
    this.unload(msg.key);
    const slot: Slot = { msg, turn: Promise.resolve() };
    this.slots.set(msg.key, slot);
    this.lru.begin(msg.key);
    const setup = await this.setup(slot);
    this.lru.done(msg.key, heapOf(slot));
    if (!setup.ok) this.unload(msg.key);
    this.evict();
    return setup.ok
      ? { t: 'reply', id: msg.id, ok: true, exportName: setup.exportName, examplesJson: setup.examplesJson, rss: process.memoryUsage.rss() }
      : { t: 'reply', id: msg.id, ok: false, reason: setup.reason, error: setup.error, rss: process.memoryUsage.rss() };
  }

  unload(key: string): void {
    const slot = this.slots.get(key);
    this.slots.delete(key);
    this.lru.forget(key);
    if (slot?.isolate && !slot.isolate.isDisposed) slot.isolate.dispose();
  }

  /** Calls of one module queue here (the host pipelines them); each runs alone in its isolate. */
  call(msg: CallMessage): Promise<CallReply> {
    const slot = this.slots.get(msg.key);
    if (!slot) return Promise.resolve(this.callFailure(msg.id, { ok: false, reason: 'not-loaded', error: 'module not loaded in this worker' }));
    this.lru.begin(msg.key);
    const result = slot.turn.then(() => this.callNow(slot, msg));
    slot.turn = result.catch(() => undefined);
    return result.finally(() => {
      this.lru.done(msg.key, heapOf(slot));
      this.evict();
    });
  }

  /** Disposes the isolates the LRU gives up (over the budget, or idle); their modules stay loaded. */
  private evict(): void {
    for (const key of this.lru.evictions()) {
      this.lru.forget(key);
      const slot = this.slots.get(key);
      if (slot) this.reset(slot);
    }
  }

  private async callNow(slot: Slot, msg: CallMessage): Promise<CallReply> {
    if (!slot.call || slot.isolate?.isDisposed !== false) {
      const setup = await this.setup(slot);
      if (!setup.ok) return this.callFailure(msg.id, setup);
    }
    const isolate = slot.isolate;
    const pending = slot.call!.apply(undefined, [msg.inputJson], { timeout: this.init.timeoutMs, result: { promise: true, copy: true } });
    const outcome = await settle(pending as Promise<unknown>, this.init.timeoutMs + BACKSTOP_MS);
    if (outcome === TIMED_OUT) return this.callFailure(msg.id, await this.afterBackstop(slot));
    if (outcome instanceof Error) {
      const failure = limitFailure(outcome, isolate) ?? { ok: false, reason: 'threw', error: outcome.message };
      if (failure.reason === 'memory') this.reset(slot);
      return this.callFailure(msg.id, failure);
    }
    return this.decode(msg.id, outcome);
  }

  /** The isolate did not answer in time: idle (a promise that never settles) or wedged in a builtin. */
  private async afterBackstop(slot: Slot): Promise<Failure> {
    // The probe runs once the isolate is free: at once when idle, after the stop when it stops.
    const probe = slot.context ? settleWithinCpu(slot.context.eval('0'), WEDGED_CPU_MS) : Promise.resolve(TIMED_OUT);
    const answer = await probe;
    if (answer === TIMED_OUT || answer instanceof Error) {
      this.reset(slot);
      return { ok: false, reason: 'wedged', error: 'time limit reached and the isolate did not stop' };
    }
    return { ok: false, reason: 'timeout', error: 'time limit reached (async work did not finish)' };
  }

  private reset(slot: Slot): void {
    try {
      if (slot.isolate && !slot.isolate.isDisposed) slot.isolate.dispose();
    } catch {
      // already gone
    }
    delete slot.isolate;
    delete slot.context;
    delete slot.call;
  }

  private decode(id: number, out: unknown): CallReply {
    const rss = process.memoryUsage.rss();
    if (typeof out !== 'string') return { t: 'reply', id, ok: false, reason: 'invalid', error: 'guest wrapper returned no string', logs: [], rss };
    const envelope = JSON.parse(out) as { s: string; json?: string; error?: string; name?: string; at?: string; logs: string[] };
    const logs = envelope.logs;
    if (envelope.s === 'value' || envelope.s === 'null' || envelope.s === 'undefined') {
      return { t: 'reply', id, ok: true, kind: envelope.s, json: envelope.json ?? '', logs, rss };
    }
    const reason: FailureReason = envelope.s === 'too-large' || envelope.s === 'invalid' ? envelope.s : 'threw';
    const thrown = envelope.s === 'threw' ? { thrown: { name: envelope.name ?? '', at: envelope.at ?? '' } } : {};
    return { t: 'reply', id, ok: false, reason, error: envelope.error ?? 'failed', logs, rss, ...thrown };
  }

  private callFailure(id: number, failure: Failure): CallReply {
    return { t: 'reply', id, ok: false, reason: failure.reason, error: failure.error, logs: [], rss: process.memoryUsage.rss() };
  }

  private async setup(slot: Slot): Promise<Setup> {
    this.reset(slot);
    const isolate = new ivm.Isolate({
      memoryLimit: this.init.memoryMb,
      onCatastrophicError: (message) => {
        process.stderr.write(`hookgate sandbox: isolate lost control (${message}); exiting\n`);
        process.exit(70);
      },
    });
    slot.isolate = isolate;
    // Prelude, compile and module top level each get the load time limit; the backstop covers a wedge.
    const outcome = await settle(this.prepare(slot, isolate), this.init.loadTimeoutMs * 3 + 1000);
    if (outcome === TIMED_OUT) {
      this.reset(slot);
      return { ok: false, reason: 'wedged', error: 'module top level did not stop at the time limit' };
    }
    if (outcome instanceof Error) {
      const failure = limitFailure(outcome, isolate) ?? { ok: false, reason: 'error', error: outcome.message };
      this.reset(slot);
      return failure;
    }
    if (!outcome.ok) this.reset(slot);
    return outcome;
  }

  private async prepare(slot: Slot, isolate: ivm.Isolate): Promise<Setup> {
    const timeout = this.init.loadTimeoutMs;
    const context = await isolate.createContext();
    slot.context = context;
    const prelude = await isolate.compileScript(this.init.prelude, { filename: 'hookgate:prelude' });
    const pair = await prelude.run(context, { timeout, reference: true });
    const call = await pair.get(0, { reference: true });
    const bind = await pair.get(1, { reference: true });
    let script: ivm.Script;
    try {
      script = await isolate.compileScript(slot.msg.code, { filename: slot.msg.filename });
    } catch (error) {
      return { ok: false, reason: 'error', error: `does not compile: ${(error as Error).message}` };
    }
    await script.run(context, { timeout });
    const out = (await bind.apply(undefined, [slot.msg.exportName], { timeout, result: { copy: true } })) as string;
    const result = JSON.parse(out) as { s: string; error?: string; exportName?: string; examples?: string };
    if (result.s !== 'ok') return { ok: false, reason: 'error', error: result.error ?? 'module check failed' };
    slot.call = call;
    return { ok: true, exportName: result.exportName ?? 'default', examplesJson: result.examples ?? '[]' };
  }
}

/** An unexpected error in the worker itself: the sandbox, not the module, failed. */
function crashed(id: number, error: unknown): CallReply {
  return { t: 'reply', id, ok: false, reason: 'lost', error: `sandbox worker error: ${String(error)}`, logs: [], rss: process.memoryUsage.rss() };
}

function main(): void {
  let host: IsolateHost | undefined;
  // Replies ready in one turn of the event loop leave together: one write for all of them.
  let outbox: Array<LoadReply | CallReply | StatsReply> = [];
  const flush = (): void => {
    const replies = outbox;
    outbox = [];
    process.send?.(replies.length === 1 ? replies[0] : { t: 'replies', replies });
  };
  const send = (reply: LoadReply | CallReply | StatsReply): void => {
    outbox.push(reply);
    if (outbox.length === 1) setImmediate(flush);
  };
  const call = (msg: CallMessage): void => {
    void host?.call(msg).then(send, (error: unknown) => send(crashed(msg.id, error)));
  };
  process.on('message', (raw) => {
    const msg = raw as ParentMessage;
    if (msg.t === 'init') host = new IsolateHost(msg);
    else if (!host) return;
    else if (msg.t === 'load') void host.load(msg).then(send, (error: unknown) => send(crashed(msg.id, error)));
    else if (msg.t === 'call') call(msg);
    else if (msg.t === 'calls') msg.calls.forEach(call);
    else if (msg.t === 'unload') host.unload(msg.key);
    else if (msg.t === 'stats') send(host.stats(msg.id));
  });
  // The ingress owns this process: when it goes away, so does the worker.
  process.on('disconnect', () => process.exit(0));
}

main();
