import type { Config } from '../../config/schema.js';
import type { BudgetConfig, ConcurrencyConfig, ThrottleConfig } from '../../config/limits-schema.js';
import { collectMappingSources } from '../../mapping/mapping-records.js';
import { PRESETS } from '../../../presets/index.js';

/** The run gates one mapping asks for (its config's throttle, concurrency and budget). */
export interface MappingRunLimits {
  throttle?: ThrottleConfig;
  concurrency?: ConcurrencyConfig;
  budget?: BudgetConfig;
}

/** A mapping's run limits by id, as the configuration in force says (a reload changes them for runs still queued). */
export type RunLimitsLookup = (mappingId: string) => MappingRunLimits | undefined;

/** The lookup for one `hooks` block; mappings without run limits are left out. */
export function runLimitsOf(hooks: Config['hooks']): RunLimitsLookup {
  const byId = new Map<string, MappingRunLimits>();
  for (const { id, config } of collectMappingSources(hooks, PRESETS).sources) {
    const limits: MappingRunLimits = {
      ...(config.throttle === undefined ? {} : { throttle: config.throttle }),
      ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
      ...(config.budget === undefined ? {} : { budget: config.budget }),
    };
    if (Object.keys(limits).length > 0) byId.set(id, limits);
  }
  return (mappingId) => byId.get(mappingId);
}

/** Every budget in force: the service's and each mapping's, as the limit store counts them. */
export function budgetRulesOf(config: Pick<Config, 'hooks' | 'agents'>): Array<{ scope: string; runsPerHour?: number; runsPerDay?: number }> {
  const rules: Array<{ scope: string; runsPerHour?: number; runsPerDay?: number }> = [];
  const service = config.agents.defaults.budget;
  if (service !== undefined) rules.push({ scope: 'service', ...service });
  for (const { id, config: mapping } of collectMappingSources(config.hooks, PRESETS).sources) {
    if (mapping.budget !== undefined) rules.push({ scope: `mapping:${id}`, ...mapping.budget });
  }
  return rules;
}
