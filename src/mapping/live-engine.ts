import type { Logger } from '../log.js';
import type { ResolvedConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { ActionBuilder } from '../actions/build.js';
import type { createTransformRunner } from '../sandbox/index.js';
import type { TransformObserver } from '../sandbox/types.js';
import { createMappingEngine, type MappingEngine } from './engine.js';

type Hooks = ResolvedConfig['hooks'];
type Runner = ReturnType<typeof createTransformRunner>;

/** The mapping engine in force, and the sandbox pool behind it; reload swaps both only when the new ones are complete. */
export interface LiveEngine {
  current(): MappingEngine | undefined;
  /** Builds an engine for the new hooks config; on any error keeps the old one, logs why and returns false. */
  reload(hooks: Hooks): Promise<boolean>;
  close(): Promise<void>;
}

interface Built {
  engine: MappingEngine | undefined;
  runner: Runner | undefined;
}

/** Throws ConfigError when the mappings or transforms do not load (the service must not start then). */
export async function createLiveEngine(hooks: Hooks, builder: ActionBuilder, logger: Logger, observer?: TransformObserver): Promise<LiveEngine> {
  const build = (next: Hooks) => buildEngine(next, builder, logger, observer);
  let live = await build(hooks);
  return {
    current: () => live.engine,
    async reload(next) {
      let built: Built;
      try {
        built = await build(next);
      } catch (error) {
        const reason = error instanceof ConfigError ? error.message : (error as Error).message;
        logger.error({ event: 'config.reload_failed', reason }, 'reload failed: the previous mappings stay in force');
        return false;
      }
      const previous = live;
      live = built;
      await previous.runner?.close();
      logger.info({ event: 'config.reloaded', mappings: built.engine?.mappingCount ?? 0 }, 'mappings reloaded');
      return true;
    },
    async close() {
      await live.runner?.close();
    },
  };
}

async function buildEngine(hooks: Hooks, builder: ActionBuilder, logger: Logger, observer: TransformObserver | undefined): Promise<Built> {
  if (!hooks.enabled || (hooks.mappings.length === 0 && hooks.presets.length === 0)) return { engine: undefined, runner: undefined };
  const runner = usesTransforms(hooks) ? await startRunner(hooks, logger, observer) : undefined;
  try {
    const engine = await createMappingEngine({ hooks, builder, transforms: runner, logger });
    if (runner !== undefined) await (await import('../sandbox/index.js')).releaseBundler();
    return { engine, runner };
  } catch (error) {
    await runner?.close();
    throw error;
  }
}

function usesTransforms(hooks: Hooks): boolean {
  return hooks.mappings.some((mapping) => mapping.transform !== undefined);
}

/** The sandbox (and esbuild with it) is loaded only by a service that has transforms. */
async function startRunner(hooks: Hooks, logger: Logger, observer: TransformObserver | undefined): Promise<Runner> {
  if (hooks.transformsDir === undefined) {
    throw new ConfigError([{ path: '/hooks/transformsDir', message: 'required when a mapping has a transform' }]);
  }
  const { createTransformRunner } = await import('../sandbox/index.js');
  return createTransformRunner({ transformsDir: hooks.transformsDir, limits: hooks.transformLimits, logger, ...(observer === undefined ? {} : { observer }) });
}
