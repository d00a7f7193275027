import type { TransformHandle, TransformInput, TransformResult, TransformSpec } from '../sandbox/types.js';

export type { TransformHandle, TransformInput, TransformResult, TransformSpec, VerifiedSignature } from '../sandbox/types.js';
export type { TransformOverride } from '../sandbox/override-schema.js';
/** What load() throws for a module that cannot be used (the port's contract, defined by the sandbox). */
export { TransformLoadError } from '../sandbox/resolve.js';

/**
 * What the mapping engine needs from the transform sandbox (src/sandbox/): the engine stays
 * testable with a fake port, and the real runner satisfies it as is.
 */
export interface TransformPort {
  /** Loads and checks a module once, at engine creation. Throws when it cannot be used. */
  load(spec: TransformSpec): Promise<TransformHandle>;
  /** Runs it for one request (or one fan-out item). Throws HookError TRANSFORM_FAILED / TRANSFORM_UNAVAILABLE. */
  run(handle: TransformHandle, input: TransformInput): Promise<TransformResult>;
}
