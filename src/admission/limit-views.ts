import type { MappingConfig } from '../config/mapping-schema.js';

/** The run-limit settings of a mapping as configured (what `hookgate try` describes and the runtime's gates apply). */
export type MappingRunLimitsView = Pick<MappingConfig, 'throttle' | 'concurrency' | 'budget'>;

/** A mapping's throttle, concurrency and budget, only those it sets. */
export function runLimitsOf(config: MappingConfig): MappingRunLimitsView {
  return {
    ...(config.throttle === undefined ? {} : { throttle: config.throttle }),
    ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
    ...(config.budget === undefined ? {} : { budget: config.budget }),
  };
}

/** Whether a mapping's run limits hold its runs at all (a mapping without any is left out of the runtime's table). */
export function hasRunLimits(limits: MappingRunLimitsView | undefined): limits is MappingRunLimitsView {
  return limits !== undefined && (limits.throttle !== undefined || limits.concurrency !== undefined || limits.budget !== undefined);
}
