import { catalogsOf, createModelPolicy, primaryModel, type ModelPolicy } from '../actions/models.js';
import { normalizeChannelName } from '../channels/index.js';
import type { ResolvedConfig } from '../config/load.js';
import { HookError } from '../errors.js';
import { collectMappingSources, type MappingSource } from '../mapping/mapping-records.js';
import { splitModelRef } from '../runtime/provider-call.js';
import { FALLBACK_CHANNEL } from '../runtime/routing.js';
import { PRESETS } from '../../presets/index.js';

/** What `hookgate check` found that loading the config accepts but a run would trip over. */
export interface RouteFindings {
  /** `/pointer: message` lines: every run that takes this route would fail. */
  problems: string[];
  /** Deliveries that would fail unless the configuration changes; runs themselves succeed. */
  warnings: string[];
}

/**
 * Follows each mapping's model and channel (and the defaults) the way a run resolves them: the
 * model through the same ModelPolicy admission uses (aliases, allow-list) and the same split the
 * runtime does before it picks the provider; the channel against the channels the service builds.
 * Templated models are only known per request and are not followed.
 */
export function checkRoutes(config: ResolvedConfig, providers: ReadonlySet<string>, channels: ReadonlySet<string>): RouteFindings {
  const policy = createModelPolicy(config.agents.defaults, catalogsOf(config.models.providers));
  const findings: RouteFindings = { problems: [], warnings: [] };
  const defaultProblem = modelProblem(policy.defaultModel, primaryModel(config.agents.defaults.model), providers);
  if (defaultProblem !== undefined) findings.problems.push(`  /agents/defaults/model: ${defaultProblem}`);
  // With hooks disabled no mapping ever runs.
  const { sources } = config.hooks.enabled ? collectMappingSources(config.hooks, PRESETS) : { sources: [] };
  for (const source of sources) {
    const problem = mappingModelProblem(source, policy, providers);
    if (problem !== undefined) findings.problems.push(`  ${source.pointer}/model: mapping "${source.id}": ${problem}`);
    const warning = mappingChannelWarning(source, channels);
    if (warning !== undefined) findings.warnings.push(`warning: ${source.pointer}/channel: mapping "${source.id}": ${warning}`);
  }
  findings.warnings.push(...defaultRouteWarnings(config, channels));
  return findings;
}

function mappingModelProblem(source: MappingSource, policy: ModelPolicy, providers: ReadonlySet<string>): string | undefined {
  const model = source.config.model?.trim();
  if (model === undefined || model === '' || model.includes('{{') || source.config.action === 'wake' || source.config.action === 'notify') return undefined;
  let id: string;
  try {
    id = policy.resolveOverride(model);
  } catch (error) {
    // Outside the allow-list: loading the mappings already reports it with this path.
    if (error instanceof HookError) return undefined;
    throw error;
  }
  return modelProblem(id, model, providers);
}

/** Why a run on this canonical id would fail before reaching a model, or undefined. */
function modelProblem(id: string, written: string, providers: ReadonlySet<string>): string | undefined {
  const ref = splitModelRef(id);
  if (ref === undefined) {
    return `model "${written}" is neither a provider/model id (e.g. echo/echo) nor an alias listed in agents.defaults.models; every run would fail`;
  }
  if (!providers.has(ref.providerId)) {
    return `model "${written}" names provider "${ref.providerId}", which is not configured (models.providers has: ${[...providers].join(', ')}); every run would fail`;
  }
  return undefined;
}

function mappingChannelWarning(source: MappingSource, channels: ReadonlySet<string>): string | undefined {
  const { channel, deliver, action } = source.config;
  if (channel === undefined || deliver === false || action === 'wake') return undefined;
  const name = normalizeChannelName(channel);
  // An unknown name is a load error already; `last` is resolved per run.
  if (name === undefined || name === 'last' || channels.has(name)) return undefined;
  return `channel "${channel}" is not configured (no enabled channels.${name} block), so its deliveries will fail; configured: ${[...channels].join(', ')}`;
}

/** `last` before any delivery, and the default route: where the first replies go. */
function defaultRouteWarnings(config: ResolvedConfig, channels: ReadonlySet<string>): string[] {
  const route = config.agents.defaults.delivery;
  if (route !== undefined) {
    // The runtime looks this name up as written (src/runtime/routing.ts), aliases and case included.
    if (channels.has(route.channel)) return [];
    return [
      `warning: /agents/defaults/delivery/channel: channel "${route.channel}" is not configured (configured: ${[...channels].join(', ')}), so deliveries to "last" will fail until one succeeds elsewhere`,
    ];
  }
  if (channels.has(FALLBACK_CHANNEL)) return [];
  return [
    `warning: /agents/defaults/delivery: not set, so deliveries to "last" (the default channel) go to ${FALLBACK_CHANNEL} until one succeeds elsewhere, and ${FALLBACK_CHANNEL} is not configured; set agents.defaults.delivery.channel (e.g. "log")`,
  ];
}
