/**
 * Messages between the ingress and a sandbox worker process. Only plain data crosses: guest input and
 * output travel as JSON strings that are parsed on the other side, never as live objects.
 */

export interface InitMessage {
  t: 'init';
  prelude: string;
  memoryMb: number;
  timeoutMs: number;
  /** Limit of each step of loading a module (its top level included): see loadTimeoutMs(). */
  loadTimeoutMs: number;
  /** Heap of the isolates kept between calls (transformLimits.isolateBudgetMb): see isolate-lru.ts. */
  isolateBudgetMb: number;
  /** An isolate not called for this long is disposed (transformLimits.isolateIdleSeconds × 1000); 0: never. */
  isolateIdleMs: number;
}

/**
 * Loading runs at start-up and reload, not per request: its steps get the call's time limit but at
 * least 1 s, so that a short call limit does not make a busy machine (where the wall-clock limit also
 * counts time spent waiting for a core) refuse a trivial module's top level.
 */
export function loadTimeoutMs(timeoutMs: number): number {
  return Math.max(timeoutMs, 1000);
}

export interface LoadMessage {
  t: 'load';
  id: number;
  key: string;
  code: string;
  exportName: string;
  filename: string;
}

export interface CallMessage {
  t: 'call';
  id: number;
  key: string;
  inputJson: string;
}

/** What the worker holds: answered with a StatsReply (`hookgate status`, the benchmark, tests). */
export interface StatsMessage {
  t: 'stats';
  id: number;
}

export interface WorkerStats {
  /** Isolates alive now (modules loaded but disposed have none until their next call). */
  isolates: number;
  /** Their heaps together (V8 total heap size plus external memory), in bytes. */
  isolateHeapBytes: number;
  /** The worker process's own V8 heap, in bytes (process.memoryUsage().heapTotal). */
  workerHeapBytes: number;
}

interface UnloadMessage {
  t: 'unload';
  key: string;
}

/** The calls the ingress sent to one worker in one turn of its event loop, in one write. */
export interface CallBatchMessage {
  t: 'calls';
  calls: CallMessage[];
}

export type ParentMessage = InitMessage | LoadMessage | CallMessage | CallBatchMessage | UnloadMessage | StatsMessage;

/**
 * Why a load or call did not produce a value. `threw`, `invalid`, `too-large` and `error` are the
 * module's fault (500); `timeout`, `memory` and `wedged` are limits (503). `wedged` also means the
 * worker must be retired: an isolate thread did not stop when told to.
 */
export type FailureReason = 'threw' | 'invalid' | 'too-large' | 'error' | 'timeout' | 'memory' | 'wedged' | 'not-loaded' | 'lost' | 'busy';

export type LoadReply =
  | { t: 'reply'; id: number; ok: true; exportName: string; examplesJson: string; rss: number }
  | { t: 'reply'; id: number; ok: false; reason: FailureReason; error: string; rss: number };

export type CallReply =
  | { t: 'reply'; id: number; ok: true; kind: 'value' | 'null' | 'undefined'; json: string; logs: string[]; rss: number }
  | { t: 'reply'; id: number; ok: false; reason: FailureReason; error: string; logs: string[]; rss: number; thrown?: ThrownFacts };

/** What a log line may say of a thrown value: its kind (`SyntaxError`, `string`) and `line:column` in the bundle ('' unknown). */
export interface ThrownFacts {
  name: string;
  at: string;
}

export type StatsReply = { t: 'reply'; id: number; ok: true; stats: WorkerStats; rss: number };

export type WorkerReply = LoadReply | CallReply | StatsReply;

/** The replies a worker had ready in one turn of its event loop, in one write. */
interface ReplyBatchMessage {
  t: 'replies';
  replies: WorkerReply[];
}

export type WorkerMessage = WorkerReply | ReplyBatchMessage;

/** Reasons that say the sandbox, not the module, could not answer: the caller may retry. */
export const UNAVAILABLE_REASONS: ReadonlySet<FailureReason> = new Set(['timeout', 'memory', 'wedged', 'lost', 'busy', 'not-loaded']);
