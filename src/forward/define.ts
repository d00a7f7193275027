import type { Static, TSchema } from 'typebox';
import type { Logger } from '../log.js';
import type { TargetClient } from './types.js';

/** What a target may use from the outside world; injected so tests can substitute them. */
export interface TargetDeps {
  fetch: typeof globalThis.fetch;
  logger: Logger;
  /** Clock of signatures' timestamps (ms). */
  now?: () => number;
}

/**
 * One target kind (the `kind` of `targets.<name>`). `create` receives a config that already passed
 * `configSchema`; it may still throw ConfigError for rules a schema cannot say.
 */
export interface TargetDefinition<S extends TSchema = TSchema> {
  readonly kind: string;
  readonly summary: string;
  readonly configSchema: S;
  /** Whether it takes forwarded actions (`forward`) and run-finished documents (`callback`). */
  readonly takes: { readonly actions: boolean; readonly callbacks: boolean };
  /** Its actions are held in the store for a consumer to pull (a relay, docs/relay.md) instead of POSTed by the runtime. */
  readonly held?: boolean;
  // Method syntax on purpose: definitions with specific schemas must fit in one registry list.
  create(name: string, config: Static<S>, deps: TargetDeps): TargetClient;
}

/** Identity helper that ties `create`'s config type to the schema. */
export function defineTarget<S extends TSchema>(def: {
  kind: string;
  summary: string;
  configSchema: S;
  takes: { actions: boolean; callbacks: boolean };
  held?: boolean;
  create(name: string, config: Static<S>, deps: TargetDeps): TargetClient;
}): TargetDefinition<S> {
  return Object.freeze({ ...def });
}
