import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.js';
import type { CallBatchMessage, CallMessage, FailureReason, InitMessage, LoadMessage, StatsMessage, WorkerMessage, WorkerReply } from './protocol.js';

// `.ts` when run from the sources, `.js` when run from the dist/ build (scripts/build.mjs).
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_ENTRY = fileURLToPath(new URL(`./worker${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url));
// From the sources, the worker's relative `.js` imports resolve to their `.ts` files through the hook.
const SOURCE_HOOKS = FROM_SOURCES ? ['--import', new URL('../../bin/source-hooks.js', import.meta.url).href] : [];

/**
 * glibc's malloc raises its mmap threshold to the size of the largest block freed so far (up to
 * 32 MiB); after that, the 64 KB–1 MB strings each call copies (the IPC message, isolated-vm's
 * copies into and out of the isolate) come from the heap, which fragments and is not given back:
 * a worker under 64 KB transform calls grew by ~55 MB, of which its V8 heaps were ~25 MB. A fixed
 * threshold maps such blocks and unmaps them when freed (bench/RESULTS.md, "Measured trades": two
 * workers −20 to −35 MB at their peak). A threshold set in the environment wins; other C
 * libraries ignore the variable.
 */
const MMAP_THRESHOLD_BYTES = '65536';

export function workerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { MALLOC_MMAP_THRESHOLD_: MMAP_THRESHOLD_BYTES, ...env };
}

export type Serialization = 'json' | 'advanced';
type Request = Omit<LoadMessage, 'id'> | Omit<CallMessage, 'id'> | Omit<StatsMessage, 'id'>;

interface Pending {
  resolve: (reply: WorkerReply) => void;
  timer: NodeJS.Timeout;
}

function failure(id: number, reason: FailureReason, error: string): WorkerReply {
  return { t: 'reply', id, ok: false, reason, error, logs: [], rss: 0 };
}

/**
 * The ingress side of one sandbox worker process: numbered requests, each with a deadline the
 * worker must meet or be SIGKILLed. A dead worker answers its in-flight requests with `lost`.
 */
export class WorkerProcess {
  readonly loaded = new Map<string, Promise<WorkerReply>>();
  /** Calls in flight here per module key (the worker runs a module's calls one after another). */
  readonly calls = new Map<string, number>();
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private readonly logger: Logger;
  private nextId = 1;
  private outbox: CallMessage[] = [];
  private retiring = false;
  private dead = false;

  constructor(init: InitMessage, serialization: Serialization, logger: Logger, onExit: (worker: WorkerProcess) => void) {
    this.logger = logger;
    this.child = fork(WORKER_ENTRY, [], {
      execArgv: ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', ...SOURCE_HOOKS],
      serialization,
      env: workerEnv(process.env),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.logger.warn({ event: 'sandbox.stderr', pid: this.pid, text: chunk.toString('utf8').slice(0, 500) }, 'sandbox worker wrote to stderr');
    });
    this.child.on('message', (message: WorkerMessage) => {
      if (message.t === 'replies') for (const reply of message.replies) this.settle(reply.id, reply);
      else this.settle(message.id, message);
    });
    // A send racing the worker's death reports here; the exit handler answers the requests.
    this.child.on('error', (error) => this.logger.warn({ event: 'sandbox.error', pid: this.pid, err: error.message }, 'sandbox worker channel error'));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.dead = true;
        for (const id of [...this.pending.keys()]) this.settle(id, failure(id, 'lost', `sandbox worker exited (${signal ?? code})`));
        onExit(this);
        resolve();
      });
    });
    this.child.send(init);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return !this.dead;
  }

  get usable(): boolean {
    return !this.dead && !this.retiring;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Sends a request; a worker that misses `deadlineMs` is killed and the request answers `wedged`. */
  request(message: Request, deadlineMs: number): Promise<WorkerReply> {
    const id = this.nextId++;
    if (this.dead) return Promise.resolve(failure(id, 'lost', 'sandbox worker is gone'));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.logger.warn({ event: 'sandbox.killed', pid: this.pid, deadlineMs }, 'sandbox worker missed a deadline; killing it');
        this.settle(id, failure(id, 'wedged', 'sandbox worker missed the deadline and was killed'));
        this.kill();
      }, deadlineMs);
      this.pending.set(id, { resolve, timer });
      if (message.t === 'call') this.queueCall({ ...message, id });
      else this.transmit({ ...message, id }, [id]);
    });
  }

  /** Calls leave together once per turn of the event loop: one write (syscall) for all of them. */
  private queueCall(call: CallMessage): void {
    this.outbox.push(call);
    if (this.outbox.length === 1) setImmediate(() => this.flushCalls());
  }

  private flushCalls(): void {
    const calls = this.outbox;
    this.outbox = [];
    if (this.dead) return; // the exit handler answered them
    const ids = calls.map((call) => call.id);
    if (calls.length === 1) this.transmit(calls[0] as CallMessage, ids);
    else this.transmit({ t: 'calls', calls }, ids);
  }

  private transmit(message: LoadMessage | CallMessage | CallBatchMessage | StatsMessage, ids: readonly number[]): void {
    this.child.send(message, (error) => {
      if (error) for (const id of ids) this.settle(id, failure(id, 'lost', 'sandbox worker channel closed'));
    });
  }

  send(message: { t: 'unload'; key: string }): void {
    if (!this.dead) this.child.send(message, () => undefined);
  }

  /** Stops taking work; the process is killed once its in-flight requests are answered. */
  retire(): void {
    this.retiring = true;
    if (this.pending.size === 0) this.kill();
  }

  kill(): void {
    if (!this.dead) this.child.kill('SIGKILL');
  }

  private settle(id: number, reply: WorkerReply): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(reply);
    if (this.retiring && this.pending.size === 0) this.kill();
  }
}
