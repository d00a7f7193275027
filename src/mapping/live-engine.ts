import type { Logger } from '../log.js';
import type { ResolvedConfig } from '../config/load.js';
import { usesTransforms } from '../config/mapping-schema.js';
import { ConfigError } from '../errors.js';
import type { ActionBuilder } from '../actions/build.js';
import type { createTransformRunner } from '../sandbox/index.js';
import type { TransformObserver } from '../sandbox/types.js';
import { createMappingEngine, type MappingEngine } from './engine.js';
import type { AdmissionLimits } from '../admission/rate-limit.js';
import type { OwnMessageLookup } from '../admission/own-messages.js';

type Hooks = ResolvedConfig['hooks'];
type Runner = ReturnType<typeof createTransformRunner>;

/** The mapping engine in force, and the sandbox pool behind it; reload swaps both only when the new ones are complete. */
export interface LiveEngine {
  current(): MappingEngine | undefined;
  /**
   * Builds an engine for the new hooks config and swaps it in; throws ConfigError (the old one
   * stays in force) when it does not build. Requests that started on the old engine finish on it:
   * its sandbox pool is drained in the background, never killed under them.
   */
  reload(hooks: Hooks): Promise<void>;
  /** Closes the engine in force and any still draining (their workers are killed). */
  close(): Promise<void>;
}

/** One built engine and the requests running on it. */
interface Generation {
  engine: MappingEngine | undefined;
  runner: Runner | undefined;
  inFlight: number;
  onIdle: (() => void) | undefined;
  /** How long its requests may still run once it is replaced (drainCapMs). */
  drainCapMs: number;
}

/** Throws ConfigError when the mappings or transforms do not load (the service must not start then). */
export async function createLiveEngine(
  hooks: Hooks,
  builder: ActionBuilder,
  logger: Logger,
  observer?: TransformObserver,
  rateLimits?: AdmissionLimits,
  ownMessages?: OwnMessageLookup,
): Promise<LiveEngine> {
  const build = async (next: Hooks): Promise<Generation> => tracked(await buildEngine(next, builder, logger, observer, { rateLimits, ownMessages }), drainCapMs(next));
  let live = await build(hooks);
  const draining = new Set<Generation>();
  const retire = async (generation: Generation): Promise<void> => {
    draining.add(generation);
    const idle = await whenIdle(generation);
    if (!idle) logger.warn({ event: 'config.drain_timeout', inFlight: generation.inFlight, capMs: generation.drainCapMs }, 'requests on the previous mappings outlived the drain; closing its sandbox');
    await (idle ? generation.runner?.drain() : generation.runner?.close());
    draining.delete(generation);
  };
  return {
    current: () => live.engine,
    async reload(next) {
      const built = await build(next);
      const previous = live;
      live = built;
      retire(previous).catch((error: unknown) => logger.warn({ event: 'config.drain_failed', err: (error as Error).message }, 'closing the previous sandbox failed'));
    },
    async close() {
      await Promise.all([live, ...draining].map((generation) => generation.runner?.close()));
    },
  };
}

/**
 * The longest a request may still run on a replaced engine: a transform call waits at most
 * timeoutMs for a worker, then its own and the queued calls' deadlines. Past it the old sandbox is
 * closed anyway, so a wedged request cannot keep old workers alive forever.
 */
function drainCapMs(hooks: Hooks): number {
  return 10 * (hooks.transformLimits.timeoutMs + 1000);
}

/** Wraps the engine so requests on it are counted; the generation is idle when none runs. */
function tracked(built: { engine: MappingEngine | undefined; runner: Runner | undefined }, capMs: number): Generation {
  const generation: Generation = { engine: undefined, runner: built.runner, inFlight: 0, onIdle: undefined, drainCapMs: capMs };
  const inner = built.engine;
  if (inner === undefined) return generation;
  const count = async <T>(work: () => Promise<T>): Promise<T> => {
    generation.inFlight += 1;
    try {
      return await work();
    } finally {
      generation.inFlight -= 1;
      if (generation.inFlight === 0) generation.onIdle?.();
    }
  };
  const engine = Object.create(inner) as MappingEngine;
  engine.resolve = (request) => count(() => inner.resolve(request));
  engine.explain = (request) => count(() => inner.explain(request));
  generation.engine = engine;
  return generation;
}

function whenIdle(generation: Generation): Promise<boolean> {
  if (generation.inFlight === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), generation.drainCapMs);
    timer.unref();
    generation.onIdle = () => {
      clearTimeout(timer);
      resolve(true);
    };
  });
}

async function buildEngine(
  hooks: Hooks,
  builder: ActionBuilder,
  logger: Logger,
  observer: TransformObserver | undefined,
  stored: { rateLimits: AdmissionLimits | undefined; ownMessages: OwnMessageLookup | undefined },
): Promise<{ engine: MappingEngine | undefined; runner: Runner | undefined }> {
  if (!hooks.enabled || (hooks.mappings.length === 0 && hooks.presets.length === 0)) return { engine: undefined, runner: undefined };
  const runner = usesTransforms(hooks.mappings) ? await startTransformRunner(hooks, logger, observer) : undefined;
  try {
    const engine = await createMappingEngine({ hooks, builder, transforms: runner, logger, ...stored });
    if (runner !== undefined) await (await import('../sandbox/index.js')).releaseBundler();
    return { engine, runner };
  } catch (error) {
    await runner?.close();
    throw error;
  }
}

/** The sandbox (and esbuild with it) is loaded only by a service or command that has transforms. */
export async function startTransformRunner(hooks: Hooks, logger: Logger, observer?: TransformObserver): Promise<Runner> {
  if (hooks.transformsDir === undefined) {
    throw new ConfigError([{ path: '/hooks/transformsDir', message: 'required when a mapping has a transform' }]);
  }
  const { createTransformRunner } = await import('../sandbox/index.js');
  return createTransformRunner({ transformsDir: hooks.transformsDir, limits: hooks.transformLimits, logger, ...(observer === undefined ? {} : { observer }) });
}
