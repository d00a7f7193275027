import { createActionBuilder, type ActionBuilder, type BuildContext } from '../../src/actions/build.js';
import { createModelPolicy } from '../../src/actions/models.js';
import type { Config } from '../../src/config/schema.js';
import type { MappingConfig } from '../../src/config/mapping-schema.js';
import { silentLogger } from '../../src/log.js';
import { createMappingEngine, type HookRequest, type MappingEngine, type MappingEngineOptions } from '../../src/mapping/engine.js';
import type { TransformInput, TransformPort, TransformResult, TransformSpec } from '../../src/mapping/transform-port.js';
import type { PresetDefinition } from '../../presets/define.js';

export const FIXED_NOW = new Date('2025-01-02T03:04:05.000Z');

export function agentDefaults(models?: Config['agents']['defaults']['models']): Config['agents']['defaults'] {
  const defaults: Config['agents']['defaults'] = {
    model: 'echo/echo',
    timeoutSeconds: 600,
    maxConcurrent: 4, maxQueued: 10000,
    heartbeat: { every: '30m', ackMaxChars: 300, promptBudgetChars: 16000 },
  };
  if (models !== undefined) defaults.models = models;
  return defaults;
}

export function hooksConfig(overrides: Partial<Config['hooks']> = {}): Config['hooks'] {
  return {
    enabled: true,
    token: 'hook-token',
    path: '/hooks',
    maxBodyBytes: 262144,
    bodyTimeoutMs: 10000,
    maxWaitSeconds: 120,
    bodyBudgetBytes: 64 * 1024 * 1024,
    minBodyBytesPerSecond: 1024,
    maxJsonDepth: 64,
    idempotencyTtlHours: 24,
    throttle: { maxFailures: 20, windowSeconds: 60, maxBlockSeconds: 3600 },
    presets: [],
    transformLimits: { memoryMb: 32, timeoutMs: 1000, workers: 2, workerIdleSeconds: 60, isolateBudgetMb: 32, isolateIdleSeconds: 300, console: false },
    mappings: [],
    allowRequestSessionKey: true,
    allowedSessionKeyPrefixes: ['hook:'],
    compat: { openclawHeaders: false },
    ...overrides,
  };
}

/** The real builder, plus a record of the build contexts it received (envelope metadata). */
export function recordingBuilder(models?: Config['agents']['defaults']['models']): { builder: ActionBuilder; contexts: BuildContext[] } {
  let runs = 0;
  const real = createActionBuilder({ models: createModelPolicy(agentDefaults(models)), newRunId: () => `run-${++runs}` });
  const contexts: BuildContext[] = [];
  return {
    contexts,
    builder: {
      sessions: real.sessions,
      agent(fields, context) {
        contexts.push(context);
        return real.agent(fields, context);
      },
      wake(fields, context) {
        contexts.push(context);
        return real.wake(fields, context);
      },
      notify(fields, context) {
        contexts.push(context);
        return real.notify(fields, context);
      },
    },
  };
}

export interface EngineSetup {
  mappings?: MappingConfig[];
  hooks?: Partial<Config['hooks']>;
  transforms?: TransformPort;
  presets?: readonly PresetDefinition[];
  models?: Config['agents']['defaults']['models'];
  logger?: MappingEngineOptions['logger'];
  ownMessages?: MappingEngineOptions['ownMessages'];
}

export async function engineWith(setup: EngineSetup = {}): Promise<MappingEngine & { contexts: BuildContext[] }> {
  const { builder, contexts } = recordingBuilder(setup.models);
  const options: MappingEngineOptions = {
    hooks: hooksConfig({ mappings: setup.mappings ?? [], ...setup.hooks }),
    builder,
    logger: setup.logger ?? silentLogger(),
    now: () => FIXED_NOW,
    presets: setup.presets ?? [],
  };
  if (setup.transforms !== undefined) options.transforms = setup.transforms;
  if (setup.ownMessages !== undefined) options.ownMessages = setup.ownMessages;
  const engine = await createMappingEngine(options);
  return { ...engine, contexts };
}

export function request(name: string, payload: Record<string, unknown> = {}, extra: Partial<HookRequest> = {}): HookRequest {
  return { name, payload, headers: {}, query: {}, ...extra };
}

/** A stand-in for the sandbox runner: answers from a function, records what it was given. */
export function fakeTransforms(answer: (spec: TransformSpec, input: TransformInput) => TransformResult | Promise<TransformResult>) {
  const loaded: TransformSpec[] = [];
  const inputs: TransformInput[] = [];
  const port: TransformPort = {
    async load(spec) {
      if (spec.module.startsWith('missing')) throw new Error(`cannot find module "${spec.module}"`);
      loaded.push(spec);
      return { spec, moduleKey: `${spec.module}#${spec.export ?? 'default'}` };
    },
    async run(handle, input) {
      inputs.push(input);
      return answer(handle.spec, input);
    },
  };
  return { port, loaded, inputs };
}

/** Resolves and insists on an `actions` outcome. */
export async function actionsOf(engine: MappingEngine, req: HookRequest) {
  const outcome = await engine.resolve(req);
  if (outcome.kind !== 'actions') throw new Error(`expected actions, got ${JSON.stringify(outcome)}`);
  return outcome;
}
