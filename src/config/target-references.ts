import { ConfigError, type ConfigIssue } from '../errors.js';
import { createTargets, targetKinds } from '../forward/index.js';
import type { TargetConfig } from '../forward/config-schema.js';
import { silentLogger } from '../log.js';
import { nearestName } from '../near-name.js';
import type { Config } from './schema.js';

/**
 * `targets` as the target registry judges them (one kind's schema, chosen by `kind`, its secret's
 * format …), and every `forward` / `callback` naming one that exists and takes what it is given,
 * with a "did you mean" (docs/forward.md). Written defensively: it runs on a config that may have
 * failed the schema.
 */
export function targetIssues(config: Config): ConfigIssue[] {
  const targets = isRecord(config.targets) ? (config.targets as Record<string, TargetConfig>) : {};
  return [...buildIssues(targets), ...referenceIssues(config, targets), ...relayTokenIssues(config, targets)];
}

/**
 * A relay target's tokens read that target only (docs/relay.md): none may be the hook token or the
 * gateway token (which every integration, or the operator, holds), nor another relay target's.
 */
function relayTokenIssues(config: Config, targets: Record<string, TargetConfig>): ConfigIssue[] {
  const others = new Map<string, string>([
    ...(typeof config.hooks?.token === 'string' ? [[config.hooks.token, 'hooks.token'] as const] : []),
    ...(typeof config.gateway?.auth?.token === 'string' ? [[config.gateway.auth.token, 'gateway.auth.token'] as const] : []),
  ]);
  const issues: ConfigIssue[] = [];
  for (const [name, target] of Object.entries(targets)) {
    if (!isRecord(target) || target.kind !== 'relay' || !Array.isArray(target.tokens)) continue;
    const own = `the tokens of target "${name}"`;
    target.tokens.forEach((token, index) => {
      const taken = others.get(token);
      if (taken === own) return; // listed twice in one target: the kind says so
      if (taken !== undefined) issues.push({ path: `/targets/${name}/tokens/${index}`, message: `target "${name}": a relay token must differ from ${taken} (it reads this target only)` });
      else others.set(token, own);
    });
  }
  return issues;
}

function buildIssues(targets: Record<string, TargetConfig>): ConfigIssue[] {
  try {
    createTargets(targets, { fetch: globalThis.fetch, logger: silentLogger() });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
}

function referenceIssues(config: Config, targets: Record<string, TargetConfig>): ConfigIssue[] {
  const kinds = targetKinds(targets as Record<string, { kind?: unknown }>);
  const issues: ConfigIssue[] = [];
  const check = (path: string, name: unknown, use: 'forward' | 'callback'): void => {
    const problem = typeof name === 'string' ? referenceProblem(name, use, kinds) : undefined;
    if (problem !== undefined) issues.push({ path, message: problem });
  };
  check('/agents/defaults/forward', config.agents?.defaults?.forward, 'forward');
  const mappings = Array.isArray(config.hooks?.mappings) ? config.hooks.mappings : [];
  mappings.forEach((mapping, index) => {
    if (!isRecord(mapping)) return;
    check(`/hooks/mappings/${index}/forward`, mapping.forward, 'forward');
    check(`/hooks/mappings/${index}/callback`, mapping.callback, 'callback');
    (Array.isArray(mapping.allowRequestCallback) ? mapping.allowRequestCallback : []).forEach((name, k) => check(`/hooks/mappings/${index}/allowRequestCallback/${k}`, name, 'callback'));
  });
  const presets = Array.isArray(config.hooks?.presets) ? config.hooks.presets : [];
  presets.forEach((entry, index) => {
    if (!isRecord(entry)) return;
    check(`/hooks/presets/${index}/forward`, entry['forward'], 'forward');
    check(`/hooks/presets/${index}/callback`, entry['callback'], 'callback');
  });
  return issues;
}

/** `forward target "hme" is not configured; did you mean "home"? (targets: home, inbox)`, or a kind that cannot take it. */
function referenceProblem(name: string, use: 'forward' | 'callback', kinds: ReturnType<typeof targetKinds>): string | undefined {
  if (!kinds.has(name)) {
    const near = nearestName(name, kinds.keys());
    const known = [...kinds.keys()].join(', ') || 'none';
    return `${use} target "${name}" is not configured${near === undefined ? '' : `; did you mean "${near}"?`} (targets: ${known})`;
  }
  const definition = kinds.get(name);
  if (definition === undefined) return undefined; // its unknown kind is reported at the target
  const takes = use === 'forward' ? definition.takes.actions : definition.takes.callbacks;
  return takes ? undefined : `${use} target "${name}" (kind ${definition.kind}) takes no ${use === 'forward' ? 'forwarded actions' : 'callbacks'}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
