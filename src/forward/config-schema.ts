import Type, { type Static, type TUnion } from 'typebox';
import type { TargetDefinition } from './define.js';
import { TARGET_REGISTRY } from './targets/registry.js';

/** The registry's config schemas as a tuple type, so `TargetConfig` is a precise union. */
type SchemasOf<R> = R extends readonly [TargetDefinition<infer S>, ...infer Rest] ? [S, ...SchemasOf<Rest>] : [];
type RegisteredSchemas = SchemasOf<typeof TARGET_REGISTRY>;

const schemas = TARGET_REGISTRY.map((definition) => definition.configSchema) as unknown as RegisteredSchemas;
const kinds = TARGET_REGISTRY.map((definition) => `\`${definition.kind}\``);

/** One entry of `targets.<name>`: the config schema of one registered kind, chosen by `kind`. */
export const TargetConfigSchema: TUnion<RegisteredSchemas> = Type.Union(schemas, {
  description: `A target; \`kind\` picks how actions are handed over (${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1) ?? ''}).`,
});
export type TargetConfig = Static<typeof TargetConfigSchema>;

/** Target names: what `forward` and `callback` refer to. */
export const TARGET_NAME_PATTERN = '^[a-z0-9][a-z0-9_-]*$';

export const TargetsConfigSchema = Type.Record(Type.String({ pattern: TARGET_NAME_PATTERN }), TargetConfigSchema, {
  default: {},
  description: 'Agent gateways and receivers that actions are forwarded to (`forward`) and run ends reported to (`callback`), by name. docs/forward.md.',
});
