import type { Config } from '../config/schema.js';
import { PRESETS } from '../../presets/index.js';
import { hasRunLimits, runLimitOwnerOf, runLimitsOf, type MappingRunLimitsView } from '../admission/limit-views.js';
import { collectMappingSources } from './mapping-records.js';

/**
 * Each mapping's throttle, concurrency and budget read from the config, for a command that builds
 * no engine (`hookgate status` beside a running service); the service takes them from its engine.
 */
export function configuredRunLimits(hooks: Config['hooks']): Map<string, MappingRunLimitsView> {
  const table = new Map<string, MappingRunLimitsView>();
  for (const { id, config, limitOwner } of collectMappingSources(hooks, PRESETS).sources) {
    const limits = runLimitsOf(config, runLimitOwnerOf(id, limitOwner));
    if (hasRunLimits(limits)) table.set(id, limits);
  }
  return table;
}
