import type { WakeMode } from '../actions/types.js';

/**
 * What the mapping engine needs from the transform sandbox (src/sandbox/), as a structural
 * interface: the engine stays testable without worker processes, and the real runner satisfies
 * it as is. These are local copies of the sandbox's types, not imports, on purpose.
 */
export interface TransformSpec {
  module: string;
  export?: string;
}

export interface TransformInput {
  payload: unknown;
  headers: Record<string, string>;
  query: Record<string, string>;
  path: string;
}

/** Fields a transform may return; each replaces the mapping's (rendered) value of the same name. */
export interface TransformOverride {
  message?: string;
  text?: string;
  name?: string;
  sessionKey?: string;
  wakeMode?: WakeMode;
  deliver?: boolean;
  channel?: string;
  to?: string;
  model?: string;
  thinking?: string;
  timeoutSeconds?: number;
  action?: 'wake' | 'agent';
}

export type TransformResult = { kind: 'override'; value: TransformOverride } | { kind: 'skip' } | { kind: 'unchanged' };

export interface TransformHandle {
  readonly spec: TransformSpec;
  readonly moduleKey: string;
}

export interface TransformPort {
  /** Loads and checks a module once, at engine creation. Throws when it cannot be used. */
  load(spec: TransformSpec): Promise<TransformHandle>;
  /** Runs it for one request (or one fan-out item). Throws HookError TRANSFORM_FAILED / TRANSFORM_UNAVAILABLE. */
  run(handle: TransformHandle, input: TransformInput): Promise<TransformResult>;
}
