import type { MappingConfig } from '../config/mapping-schema.js';

/** The run-limit settings of a mapping as configured (what `hookgate try` describes). */
export type MappingRunLimitsView = Pick<MappingConfig, 'throttle' | 'concurrency' | 'budget'>;
