import { HookError } from '../errors.js';
import type { Config } from '../config/schema.js';

/** Decides which model overrides a request may ask for, and what id an alias stands for. */
export interface ModelPolicy {
  /** The canonical `provider/model` id for an override; throws MODEL_NOT_ALLOWED. */
  resolveOverride(model: string): string;
  /** The canonical id of the configured default model (an alias is resolved). */
  readonly defaultModel: string;
}

export function createModelPolicy(defaults: Config['agents']['defaults']): ModelPolicy {
  const aliases = new Map<string, string>();
  const allowed = new Set<string>();
  for (const entry of defaults.models ?? []) {
    const id = typeof entry === 'string' ? entry : entry.id;
    allowed.add(id);
    if (typeof entry !== 'string' && entry.alias !== undefined) aliases.set(entry.alias, id);
  }
  const enforced = defaults.models !== undefined;
  const canonical = (model: string): string => aliases.get(model) ?? model;
  return {
    defaultModel: canonical(defaults.model),
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
