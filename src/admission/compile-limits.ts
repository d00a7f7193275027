import type { MappingConfig } from '../config/mapping-schema.js';
import { TemplateSyntaxError, type CompiledTemplate, type TemplateCompiler } from '../compiled-template.js';
import { compileRateLimit, type CompiledRateLimit } from './rate-limit.js';
import type { CompiledRunLimitKeys } from './run-limit-keys.js';
import { runLimitsOf, type MappingRunLimitsView, type RunLimitOwner } from './limit-views.js';

export interface CompiledLimits {
  rateLimit: CompiledRateLimit | undefined;
  runLimitKeys: CompiledRunLimitKeys | undefined;
  runLimits: MappingRunLimitsView;
}

/**
 * A mapping's limit keys, compiled once at load like its other templates; problems and warnings
 * are collected. `owner` names its rate-limit buckets, throttle buckets, concurrency keys and budget:
 * the mapping's, or what several mappings share (a preset's).
 */
export function compileLimits(
  config: MappingConfig,
  owner: RunLimitOwner,
  templates: TemplateCompiler,
  problem: (field: string, message: string) => void,
  warn: (message: string) => void,
): CompiledLimits {
  const compileKey = (field: string) => (source: string): CompiledTemplate | undefined => {
    try {
      return templates.compile(source);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      problem(`${field}/key`, `${field}.key does not compile: ${error.message}`);
      return undefined;
    }
  };
  const rateLimit = config.rateLimit === undefined ? undefined : compileRateLimit(config.rateLimit, owner.owner, compileKey('rateLimit'));
  const runLimitFields = (['throttle', 'concurrency', 'budget'] as const).filter((field) => config[field] !== undefined);
  if (runLimitFields.length > 0 && (config.action ?? 'agent') === 'wake') warn(`${runLimitFields.join(', ')} only hold agent runs; a wake mapping's events are never delayed`);
  if (config.budget !== undefined && config.budget.runsPerHour === undefined && config.budget.runsPerDay === undefined) {
    problem('budget', 'budget needs runsPerHour, runsPerDay or both');
  }
  const throttleKey = config.throttle?.key === undefined ? undefined : compileKey('throttle')(config.throttle.key);
  const concurrencyKey = config.concurrency?.key === undefined ? undefined : compileKey('concurrency')(config.concurrency.key);
  const runLimitKeys = throttleKey === undefined && concurrencyKey === undefined ? undefined : { throttle: throttleKey, concurrency: concurrencyKey };
  return { rateLimit, runLimitKeys, runLimits: runLimitsOf(config, owner) };
}
