import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { HookError } from '../errors.js';
import type { Logger } from '../log.js';
import { BundleCache, REGISTER_GLOBAL } from './bundle.js';
import { ConsoleLimiter } from './console-limiter.js';
import { guestPrelude } from './guest-prelude.js';
import { parseOverride } from './override-schema.js';
import { SandboxPool, type WorkerSnapshot } from './pool.js';
import type { SourceMap } from 'node:module';
import { failureLogFields, readSourceMap } from './failure-log.js';
import { loadTimeoutMs, UNAVAILABLE_REASONS, type FailureReason, type LoadReply, type ThrownFacts } from './protocol.js';
import { moduleError, resolveModule } from './resolve.js';
import { DEFAULT_ISOLATE_BUDGET_MB, DEFAULT_ISOLATE_IDLE_SECONDS } from './types.js';
import type { ExampleOutcome, TransformHandle, TransformInput, TransformResult, TransformRunner, TransformRunnerOptions, TransformSpec, TransformCallOutcome } from './types.js';
import type { Serialization } from './worker-process.js';

/** Largest JSON a transform may return, checked inside the isolate before anything leaves it. */
export const MAX_OUTPUT_CHARS = 1_000_000;

export interface SandboxRunnerOptions extends TransformRunnerOptions {
  /** IPC encoding between the ingress and its workers (bench/transform-call.ts compares them). */
  serialization?: Serialization;
  /** Worker RSS ceiling in MiB, overriding limits.workerRssMb (tests); default 256 + limits.memoryMb. */
  rssCeilingMb?: number;
  /** Sampling period of busy workers' RSS (default RSS_CHECK_MS); 0 turns it off. */
  rssCheckMs?: number;
  /** How often workers beyond the first are checked for idleness (tests: short, with an injected clock). */
  idleCheckMs?: number;
  /** How long calls wait for a full worker before another starts (PoolOptions.growAfterMs; tests). */
  growAfterMs?: number;
}

/** The runner plus what tests and `hookgate status` need to see of it. */
export interface SandboxTransformRunner extends TransformRunner {
  workerPids(): number[];
  /** What each running worker holds: isolates, their heaps, its RSS. */
  workerStats(): Promise<WorkerSnapshot[]>;
  /** Takes no new calls; closes once the calls in flight are answered (each within its deadline). */
  drain(): Promise<void>;
}

interface Loaded {
  handle: TransformHandle;
  label: string;
  examplesJson: string;
  sourceMap: SourceMap | undefined;
}

type Outcome = { ok: true; result: TransformResult } | { ok: false; reason: FailureReason; error: string; durationMs: number; thrown?: ThrownFacts };

interface Example {
  name: string;
  input?: { payload?: unknown; headers?: Record<string, string>; query?: Record<string, string>; path?: string; url?: string };
  expectKind: 'value' | 'null' | 'undefined';
  expect?: unknown;
}

function describeLoadFailure(reply: Extract<LoadReply, { ok: false }>, timeoutMs: number): string {
  if (reply.reason === 'timeout' || reply.reason === 'wedged') return `top level did not finish within ${timeoutMs} ms`;
  if (reply.reason === 'memory') return 'top level exceeded the sandbox memory limit';
  if (reply.reason === 'lost') return `the sandbox worker was lost while loading (${reply.error})`;
  return reply.error;
}

function rssCeiling(mb: number | undefined): { rssCeilingMb?: number } {
  return mb === undefined ? {} : { rssCeilingMb: mb };
}

export function createTransformRunner(options: SandboxRunnerOptions): SandboxTransformRunner {
  return new SandboxRunner(options);
}

class SandboxRunner implements SandboxTransformRunner {
  private readonly pool: SandboxPool;
  private readonly bundles = new BundleCache();
  private readonly loaded = new Map<string, Loaded>();
  /** Current key per module export, so a changed file's previous isolates are unloaded. */
  private readonly current = new Map<string, string>();
  private readonly console: ConsoleLimiter;
  private readonly options: SandboxRunnerOptions;
  private readonly logger: Logger;

  constructor(options: SandboxRunnerOptions) {
    this.options = options;
    this.logger = options.logger;
    this.console = new ConsoleLimiter(options.logger, options.now, options.limits.console === true);
    const { memoryMb, timeoutMs } = options.limits;
    const isolateBudgetMb = options.limits.isolateBudgetMb ?? DEFAULT_ISOLATE_BUDGET_MB;
    const isolateIdleMs = (options.limits.isolateIdleSeconds ?? DEFAULT_ISOLATE_IDLE_SECONDS) * 1000;
    this.pool = new SandboxPool({
      size: Math.max(1, options.limits.workers),
      init: {
        t: 'init',
        prelude: guestPrelude({ maxOutputChars: MAX_OUTPUT_CHARS, registerGlobal: REGISTER_GLOBAL }),
        memoryMb,
        timeoutMs,
        loadTimeoutMs: loadTimeoutMs(timeoutMs),
        isolateBudgetMb,
        isolateIdleMs,
      },
      logger: options.logger,
      ...(options.serialization ? { serialization: options.serialization } : {}),
      ...rssCeiling(options.rssCeilingMb ?? options.limits.workerRssMb),
      ...(options.rssCheckMs === undefined ? {} : { rssCheckMs: options.rssCheckMs }),
      ...(options.limits.workerIdleSeconds === undefined ? {} : { workerIdleMs: options.limits.workerIdleSeconds * 1000 }),
      ...(options.idleCheckMs === undefined ? {} : { idleCheckMs: options.idleCheckMs }),
      ...(options.growAfterMs === undefined ? {} : { growAfterMs: options.growAfterMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  workerPids(): number[] {
    return this.pool.pids();
  }

  workerStats(): Promise<WorkerSnapshot[]> {
    return this.pool.stats();
  }

  async load(spec: TransformSpec): Promise<TransformHandle> {
    const resolved = await resolveModule(this.options.transformsDir, spec.module);
    const bundle = await this.bundles.get(spec.module, resolved);
    const identity = `${resolved.file}#${spec.export ?? ''}`;
    const moduleKey = `${identity}@${createHash('sha256').update(bundle.code).digest('hex').slice(0, 16)}`;
    const known = this.loaded.get(moduleKey);
    if (known) return known.handle;
    const exportName = spec.export ?? '';
    const reply = await this.pool.load({ key: moduleKey, code: bundle.code, exportName, filename: `file://${resolved.file}` });
    if (!reply.ok) throw moduleError(spec.module, describeLoadFailure(reply, loadTimeoutMs(this.options.limits.timeoutMs)), resolved.file);
    const previous = this.current.get(identity);
    if (previous !== undefined && previous !== moduleKey) {
      this.pool.unload(previous);
      this.loaded.delete(previous);
    }
    this.current.set(identity, moduleKey);
    const handle: TransformHandle = Object.freeze({ spec: Object.freeze({ ...spec }), moduleKey });
    const label = spec.export === undefined ? spec.module : `${spec.module}#${spec.export}`;
    this.loaded.set(moduleKey, { handle, label, examplesJson: reply.examplesJson, sourceMap: readSourceMap(bundle.sourceMap) });
    return handle;
  }

  async run(handle: TransformHandle, input: TransformInput): Promise<TransformResult> {
    const started = performance.now();
    const outcome = await this.execute(handle, input);
    const loaded = this.loaded.get(handle.moduleKey);
    const label = loaded?.label ?? handle.spec.module;
    this.options.observer?.observeTransform(label, performance.now() - started, observedOutcome(outcome));
    if (outcome.ok) return outcome.result;
    this.logger.warn(
      { event: 'transform.failed', module: label, durationMs: outcome.durationMs, ...failureLogFields(outcome.reason, outcome.error, outcome.thrown, loaded?.sourceMap) },
      `transform ${label} failed: ${outcome.reason}`,
    );
    if (UNAVAILABLE_REASONS.has(outcome.reason)) {
      throw new HookError('TRANSFORM_UNAVAILABLE', 'transform unavailable, retry later', { retryAfterSeconds: 1 });
    }
    // The detail stays out of the response (the caller's payload shaped it) but is the cause,
    // which `hookgate try` shows.
    throw new HookError('TRANSFORM_FAILED', 'hook mapping failed', { cause: new Error(`transform ${label}: ${outcome.error.slice(0, 300)}`) });
  }

  async runExamples(handle: TransformHandle): Promise<ExampleOutcome[]> {
    const loaded = this.loaded.get(handle.moduleKey);
    if (!loaded) return [{ name: handle.spec.module, ok: false, detail: 'module is not loaded' }];
    const examples = JSON.parse(loaded.examplesJson) as Example[];
    const outcomes: ExampleOutcome[] = [];
    for (const example of examples) {
      const input: TransformInput = {
        payload: example.input?.payload,
        headers: example.input?.headers ?? {},
        query: example.input?.query ?? {},
        path: example.input?.path ?? '',
        url: example.input?.url ?? '',
      };
      outcomes.push(compareExample(example, await this.execute(handle, input)));
    }
    return outcomes;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  drain(): Promise<void> {
    return this.pool.drain();
  }

  private async execute(handle: TransformHandle, input: TransformInput): Promise<Outcome> {
    const started = performance.now();
    const loaded = this.loaded.get(handle.moduleKey);
    const reply = await this.pool.call(handle.moduleKey, JSON.stringify(input));
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    this.console.write(loaded?.label ?? handle.spec.module, reply.logs);
    if (!reply.ok) return { ok: false, reason: reply.reason, error: reply.error, durationMs, ...(reply.thrown === undefined ? {} : { thrown: reply.thrown }) };
    if (reply.kind === 'null') return { ok: true, result: { kind: 'skip' } };
    if (reply.kind === 'undefined') return { ok: true, result: { kind: 'unchanged' } };
    const parsed = parseOverride(reply.json);
    if (!parsed.ok) return { ok: false, reason: 'invalid', error: parsed.reason, durationMs };
    return { ok: true, result: parsed.ignored === undefined ? { kind: 'override', value: parsed.value } : { kind: 'override', value: parsed.value, ignored: parsed.ignored } };
  }
}

function compareExample(example: Example, outcome: Outcome): ExampleOutcome {
  if (!outcome.ok) return { name: example.name, ok: false, detail: `${outcome.reason}: ${outcome.error}` };
  const result = outcome.result;
  const expected = example.expectKind === 'null' ? 'skip' : example.expectKind === 'undefined' ? 'unchanged' : 'override';
  if (result.kind !== expected) return { name: example.name, ok: false, detail: `expected ${expected}, got ${result.kind}` };
  // An example asserts what the module returns: keys a request would drop are the author's mistake.
  if (result.kind === 'override' && result.ignored !== undefined) {
    return { name: example.name, ok: false, detail: `returned keys Hookgate does not use (ignored on requests): ${result.ignored.join(', ')}` };
  }
  if (result.kind === 'override' && !isDeepStrictEqual(result.value, example.expect)) {
    return { name: example.name, ok: false, detail: `expected ${JSON.stringify(example.expect)}, got ${JSON.stringify(result.value)}` };
  }
  return { name: example.name, ok: true };
}

function observedOutcome(outcome: Outcome): TransformCallOutcome {
  if (outcome.ok) return outcome.result.kind === 'skip' ? 'skipped' : 'ok';
  if (outcome.reason === 'timeout') return 'timeout';
  return UNAVAILABLE_REASONS.has(outcome.reason) ? 'unavailable' : 'failed';
}
