/** The transform sandbox: the mapping engine's only way to run admin-supplied transform code. */
export type {
  ExampleOutcome,
  SandboxLimits,
  TransformHandle,
  TransformInput,
  TransformResult,
  TransformRunner,
  TransformRunnerOptions,
  TransformSpec,
} from './types.js';
export type { TransformOverride } from './override-schema.js';
export { TransformOverrideSchema, parseOverride } from './override-schema.js';
export { createTransformRunner, MAX_OUTPUT_CHARS, type SandboxRunnerOptions, type SandboxTransformRunner } from './transform-runner.js';
export { releaseBundler } from './bundle.js';
export { TransformLoadError } from './resolve.js';
