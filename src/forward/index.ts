import { Compile } from 'typebox/compile';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { collapseLiteralUnions } from '../schema-errors.js';
import type { TargetConfig } from './config-schema.js';
import type { TargetDefinition, TargetDeps } from './define.js';
import { TARGET_REGISTRY } from './targets/registry.js';
import type { TargetClient } from './types.js';
import type { TargetPolicy } from '../actions/handoff.js';

export type { TargetClient, TargetSettings, ForwardedAction, RelaySettings } from './types.js';
export type { TargetDeps } from './define.js';

/** Every target kind (src/forward/targets/registry.ts), as definitions. */
export const TARGETS: readonly TargetDefinition[] = TARGET_REGISTRY;

/** The kind of each configured target, and what it takes (for `forward` and `callback` checks). */
export function targetKinds(config: Readonly<Record<string, { kind?: unknown }>>): Map<string, TargetDefinition | undefined> {
  const byKind = new Map(TARGETS.map((definition) => [definition.kind, definition]));
  return new Map(Object.entries(config).map(([name, entry]) => [name, typeof entry.kind === 'string' ? byKind.get(entry.kind) : undefined]));
}

/**
 * Builds every configured target, keyed by name. Throws ConfigError for a config that does not
 * fit its kind, listing every problem at once.
 */
export function createTargets(config: Readonly<Record<string, TargetConfig>>, deps: TargetDeps): Map<string, TargetClient> {
  const byKind = new Map(TARGETS.map((definition) => [definition.kind, definition]));
  const issues: ConfigIssue[] = [];
  const targets = new Map<string, TargetClient>();
  for (const [name, entry] of Object.entries(config)) {
    const found = checkEntry(name, entry, byKind);
    if (Array.isArray(found)) {
      issues.push(...found);
      continue;
    }
    try {
      targets.set(name, found.create(name, entry, deps));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return targets;
}

/** The definition an entry belongs to, or its problems (the schema's union reports them poorly). */
function checkEntry(name: string, entry: unknown, byKind: ReadonlyMap<string, TargetDefinition>): TargetDefinition | ConfigIssue[] {
  const at = `/targets/${name}`;
  const kind = typeof entry === 'object' && entry !== null && 'kind' in entry ? entry.kind : undefined;
  const definition = typeof kind === 'string' ? byKind.get(kind) : undefined;
  if (definition === undefined) {
    const known = TARGETS.map((d) => d.kind).join(', ');
    return [{ path: `${at}/kind`, message: `target "${name}": unknown kind ${JSON.stringify(kind) ?? 'undefined'}; expected one of ${known}` }];
  }
  const validator = Compile(definition.configSchema);
  if (validator.Check(entry)) return definition;
  return collapseLiteralUnions(validator.Errors(entry))
    .filter((error) => error.keyword !== 'additionalProperties')
    .map((error) => ({ path: `${at}${error.instancePath}`, message: `target "${name}": ${error.keyword === 'boolean' ? 'unknown key' : error.message}` }));
}

/** The targets an action may be forwarded to and a callback sent to, by what their kinds take. */
export function targetPolicyOf(config: Readonly<Record<string, { kind?: unknown }>>, defaultForward: string | undefined): TargetPolicy {
  const kinds = [...targetKinds(config)];
  return {
    defaultForward,
    forwards: new Set(kinds.filter(([, definition]) => definition?.takes.actions === true).map(([name]) => name)),
    callbacks: new Set(kinds.filter(([, definition]) => definition?.takes.callbacks === true).map(([name]) => name)),
    relays: new Set(kinds.filter(([, definition]) => definition?.held === true).map(([name]) => name)),
  };
}
