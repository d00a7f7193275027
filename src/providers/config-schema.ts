import Type, { type Static, type TUnion } from 'typebox';
import type { ProviderDefinition } from './define.js';
import { PROVIDER_REGISTRY } from './registry.js';

/** The registry's config schemas as a tuple type, so `ProviderConfig` is a precise union. */
type SchemasOf<R> = R extends readonly [ProviderDefinition<infer S>, ...infer Rest] ? [S, ...SchemasOf<Rest>] : [];
type RegisteredSchemas = SchemasOf<typeof PROVIDER_REGISTRY>;

const schemas = PROVIDER_REGISTRY.map((definition) => definition.configSchema) as unknown as RegisteredSchemas;
const apis = PROVIDER_REGISTRY.map((definition) => `\`${definition.api}\``);

/** One entry of `models.providers.<id>`: the config schema of one registered provider, chosen by `api`. */
export const ProviderConfigSchema: TUnion<RegisteredSchemas> = Type.Union(schemas, {
  description: `A model provider; \`api\` picks the protocol (${apis.slice(0, -1).join(', ')} or ${apis.at(-1) ?? ''}).`,
});
export type ProviderConfig = Static<typeof ProviderConfigSchema>;
