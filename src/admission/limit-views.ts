import type { MappingConfig } from '../config/mapping-schema.js';

/** Whose limits a mapping's are: its own, or its preset's, which every mapping of the preset shares (docs/presets.md). */
export interface RunLimitOwner {
  /** Whose throttle bucket and concurrency keys: the mapping's id, or its preset's (`preset:github`). */
  owner: string;
  /** Its budget's scope: `mapping:<id>`, or the preset's (`preset:github`). */
  budgetScope: string;
}

/** A mapping's throttle, concurrency and budget as configured. */
export type RunLimitSettings = Pick<MappingConfig, 'throttle' | 'concurrency' | 'budget'>;

/** The run limits of a mapping as configured, with whose they are (what `hookgate try` describes and the runtime's gates apply). */
export type MappingRunLimitsView = RunLimitSettings & RunLimitOwner;

/** A mapping's own limits, or, for a preset's mapping (`sharedBy` its preset), the preset's. */
export function runLimitOwnerOf(mappingId: string, sharedBy: string | undefined): RunLimitOwner {
  return sharedBy === undefined ? { owner: mappingId, budgetScope: `mapping:${mappingId}` } : { owner: sharedBy, budgetScope: sharedBy };
}

/** A mapping's throttle, concurrency and budget, only those it sets. */
export function runLimitsOf(config: MappingConfig, owner: RunLimitOwner): MappingRunLimitsView {
  return {
    ...owner,
    ...(config.throttle === undefined ? {} : { throttle: config.throttle }),
    ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
    ...(config.budget === undefined ? {} : { budget: config.budget }),
  };
}

/** Whether a mapping's run limits hold its runs at all (a mapping without any is left out of the runtime's table). */
export function hasRunLimits<T extends RunLimitSettings>(limits: T | undefined): limits is T {
  return limits !== undefined && (limits.throttle !== undefined || limits.concurrency !== undefined || limits.budget !== undefined);
}
