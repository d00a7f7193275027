import type { Config } from '../../config/schema.js';
import type { BudgetConfig, ConcurrencyConfig, ThrottleConfig } from '../../config/limits-schema.js';
import { collectMappingSources, type MappingSource } from '../../mapping/mapping-records.js';
import { PRESETS } from '../../../presets/index.js';

/** The run gates one mapping asks for (its config's throttle, concurrency and budget). */
export interface MappingRunLimits {
  /** Whose throttle bucket and concurrency keys: the mapping's id, or its preset's (`preset:github`), shared by the preset's mappings. */
  owner: string;
  /** Its budget's scope: `mapping:<id>`, or the preset's (`preset:github`). */
  budgetScope: string;
  throttle?: ThrottleConfig;
  concurrency?: ConcurrencyConfig;
  budget?: BudgetConfig;
}

/** A mapping's run limits by id, as the configuration in force says (a reload changes them for runs still queued). */
export type RunLimitsLookup = (mappingId: string) => MappingRunLimits | undefined;

/** The lookup for one `hooks` block; mappings without run limits are left out. */
export function runLimitsOf(hooks: Config['hooks']): RunLimitsLookup {
  const byId = new Map<string, MappingRunLimits>();
  for (const source of collectMappingSources(hooks, PRESETS).sources) {
    const { config } = source;
    if (config.throttle === undefined && config.concurrency === undefined && config.budget === undefined) continue;
    byId.set(source.id, {
      ...limitOwnerOf(source),
      ...(config.throttle === undefined ? {} : { throttle: config.throttle }),
      ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
      ...(config.budget === undefined ? {} : { budget: config.budget }),
    });
  }
  return (mappingId) => byId.get(mappingId);
}

/** A preset's mappings are counted together, under the preset (docs/presets.md); a mapping of the user's on its own. */
function limitOwnerOf(source: MappingSource): { owner: string; budgetScope: string } {
  return source.limitOwner === undefined ? { owner: source.id, budgetScope: `mapping:${source.id}` } : { owner: source.limitOwner, budgetScope: source.limitOwner };
}

/** Every budget in force: the service's and each mapping's, as the limit store counts them. */
export function budgetRulesOf(config: Pick<Config, 'hooks' | 'agents'>): Array<{ scope: string; runsPerHour?: number; runsPerDay?: number }> {
  const rules: Array<{ scope: string; runsPerHour?: number; runsPerDay?: number }> = [];
  const service = config.agents.defaults.budget;
  if (service !== undefined) rules.push({ scope: 'service', ...service });
  for (const source of collectMappingSources(config.hooks, PRESETS).sources) {
    const scope = limitOwnerOf(source).budgetScope;
    // A preset's mappings share one budget: listed once.
    if (source.config.budget !== undefined && !rules.some((rule) => rule.scope === scope)) rules.push({ scope, ...source.config.budget });
  }
  return rules;
}
