import { HookError } from '../errors.js';
import type { Config } from '../config/schema.js';

/** Decides which model overrides a request may ask for, and what id an alias stands for. */
export interface ModelPolicy {
  /** The canonical `provider/model` id for an override; throws MODEL_NOT_ALLOWED. */
  resolveOverride(model: string): string;
  /** The canonical id of the configured default model (an alias is resolved). */
  readonly defaultModel: string;
}

type Defaults = Pick<Config['agents']['defaults'], 'model' | 'models'>;

/** `agents.defaults.model` as a string, or OpenClaw's `{ primary, fallbacks? }`: the model runs use. */
export function primaryModel(model: Defaults['model']): string {
  return typeof model === 'string' ? model : model.primary;
}

/** `agents.defaults.models` in any accepted shape, as `[id, alias?]` pairs in the order written. */
export function modelEntries(models: Defaults['models']): Array<{ id: string; alias: string | undefined }> {
  if (models === undefined) return [];
  if (Array.isArray(models)) return models.map((entry) => (typeof entry === 'string' ? { id: entry, alias: undefined } : { id: entry.id, alias: entry.alias }));
  return Object.entries(models).map(([id, entry]) => ({ id, alias: entry.alias }));
}

/** Provider id → the model ids its catalog (`models.providers.<id>.models`) lists. */
export type ModelCatalogs = ReadonlyMap<string, readonly string[]>;

export function catalogsOf(providers: Readonly<Record<string, { models?: ReadonlyArray<{ id: string }> | undefined }>>): ModelCatalogs {
  return new Map(Object.entries(providers).flatMap(([id, provider]) => (provider.models === undefined ? [] : [[id, provider.models.map((entry) => entry.id)] as const])));
}

/**
 * A bare model id (no `provider/`) as OpenClaw resolves it: the one provider whose catalog lists it.
 * Undefined when no catalog lists it (the id is then used as given); 400 when several do.
 */
export function resolveBareModel(model: string, catalogs: ModelCatalogs): string | undefined {
  if (model.includes('/')) return undefined;
  const providers = [...catalogs].filter(([, ids]) => ids.includes(model)).map(([id]) => id);
  if (providers.length > 1) {
    throw new HookError('INVALID_BODY', `model "${truncate(model)}" is in the catalogs of several providers (${providers.join(', ')}): name it as provider/model`);
  }
  return providers.length === 1 ? `${providers[0]}/${model}` : undefined;
}

export function createModelPolicy(defaults: Defaults & Partial<Config['agents']['defaults']>, catalogs: ModelCatalogs = new Map()): ModelPolicy {
  const aliases = new Map<string, string>();
  const allowed = new Set<string>();
  for (const { id, alias } of modelEntries(defaults.models)) {
    allowed.add(id);
    if (alias !== undefined) aliases.set(alias, id);
  }
  const enforced = defaults.models !== undefined;
  const canonical = (model: string): string => {
    const id = aliases.get(model) ?? model;
    return resolveBareModel(id, catalogs) ?? id;
  };
  return {
    defaultModel: canonical(primaryModel(defaults.model)),
    resolveOverride(model: string): string {
      const trimmed = model.trim();
      if (trimmed === '') throw new HookError('INVALID_BODY', 'model must not be empty');
      const id = canonical(trimmed);
      if (enforced && !allowed.has(id)) {
        throw new HookError('MODEL_NOT_ALLOWED', `model "${truncate(trimmed)}" is not in agents.defaults.models`);
      }
      return id;
    },
  };
}

function truncate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
