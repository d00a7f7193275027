import type { Logger } from '../log.js';
import type { TransformOverride } from './override-schema.js';

/** What a mapping names: a module inside `hooks.transformsDir` and optionally the export to call. */
export interface TransformSpec {
  module: string;
  export?: string;
}

/** The copy of the request a transform receives (only JSON crosses into the sandbox). */
export interface TransformInput {
  payload: unknown;
  headers: Record<string, string>;
  query: Record<string, string>;
  path: string;
  /** The request URL's path and query (credentials removed), e.g. `/hooks/github?x=1` (OpenClaw's `url`). */
  url?: string;
  /** The verified signature of a signed request (`signature` on the mapping); absent otherwise. */
  signature?: VerifiedSignature;
}

/** What a transform learns about a verified signature: never the secret or the signature itself. */
export interface VerifiedSignature {
  scheme: string;
  /** The provider's delivery id, or null when the scheme has none. */
  id: string | null;
  /** The signed Unix time in seconds, or null when the scheme signs none. */
  timestamp: number | null;
}

export type TransformResult =
  /** An object was returned: the engine merges it over the mapping's fields. */
  | { kind: 'override'; value: TransformOverride; ignored?: string[] }
  /** `null` was returned: the engine answers 204. */
  | { kind: 'skip' }
  /** `undefined` was returned: the mapping applies as configured. */
  | { kind: 'unchanged' };

/** A module that passed `load()`: bundled, compiled and checked in a worker. */
export interface TransformHandle {
  readonly spec: TransformSpec;
  /** Identifies one version of one module export (realpath, export, mtime, size). */
  readonly moduleKey: string;
}

export interface ExampleOutcome {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface TransformRunner {
  /** Resolve, bundle, compile and check the module in a worker; throws ConfigError naming the module and the problem. */
  load(spec: TransformSpec): Promise<TransformHandle>;
  /** Throws HookError('TRANSFORM_FAILED', 'hook mapping failed') or HookError('TRANSFORM_UNAVAILABLE', …, { retryAfterSeconds: 1 }). */
  run(handle: TransformHandle, input: TransformInput): Promise<TransformResult>;
  /** Runs the module's exported `examples` (input → expected output); for `hookgate check`. */
  runExamples(handle: TransformHandle): Promise<ExampleOutcome[]>;
  close(): Promise<void>;
}

export interface SandboxLimits {
  /** Heap limit of one isolate, in MiB. */
  memoryMb: number;
  /** Time limit of one call, async work included. */
  timeoutMs: number;
  /** Most sandbox worker processes (the first runs always, the others while load calls for them). */
  workers: number;
  /** Seconds without a call after which a worker beyond the first stops; default 60. */
  workerIdleSeconds?: number | undefined;
  /** RSS (MiB) past which a worker is recycled; default 256 + memoryMb. */
  workerRssMb?: number | undefined;
  /** Log what transforms write with console.* (`transform.console`); off when absent. */
  console?: boolean;
  /** Heap (MiB) of the isolates one worker keeps between calls; default DEFAULT_ISOLATE_BUDGET_MB. */
  isolateBudgetMb?: number | undefined;
  /** Seconds without a call after which an isolate is disposed (0: never); default DEFAULT_ISOLATE_IDLE_SECONDS. */
  isolateIdleSeconds?: number | undefined;
}

/** The schema's defaults of transformLimits.isolateBudgetMb and isolateIdleSeconds (for runners built without a config). */
export const DEFAULT_ISOLATE_BUDGET_MB = 32;
export const DEFAULT_ISOLATE_IDLE_SECONDS = 300;

export interface TransformRunnerOptions {
  transformsDir: string;
  limits: SandboxLimits;
  logger: Logger;
  /** Clock for console rate limiting; tests inject one. */
  now?: () => number;
  /** Told the duration and outcome of every call (the service's metrics). */
  observer?: TransformObserver;
}

export type TransformCallOutcome = 'ok' | 'skipped' | 'failed' | 'timeout' | 'unavailable';

export interface TransformObserver {
  observeTransform(module: string, ms: number, outcome: TransformCallOutcome): void;
}
