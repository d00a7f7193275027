import type { Static, TSchema } from 'typebox';
import type { Logger } from '../log.js';
import type { Provider } from './types.js';

/** What a provider may use from the outside world; injected so tests can substitute them. */
export interface ProviderDeps {
  fetch: typeof globalThis.fetch;
  logger: Logger;
}

/**
 * One provider kind (an `api` value of `models.providers.<id>`). `create` receives a config that
 * already passed `configSchema`; it may still throw ConfigError for rules a schema cannot say.
 */
export interface ProviderDefinition<S extends TSchema = TSchema> {
  readonly api: string;
  readonly summary: string;
  readonly configSchema: S;
  // Method syntax on purpose: definitions with specific schemas must fit in one registry list.
  create(id: string, config: Static<S>, deps: ProviderDeps): Provider;
}

/** Identity helper that ties `create`'s config type to the schema. */
export function defineProvider<S extends TSchema>(def: {
  api: string;
  summary: string;
  configSchema: S;
  create(id: string, config: Static<S>, deps: ProviderDeps): Provider;
}): ProviderDefinition<S> {
  return Object.freeze({ ...def });
}
