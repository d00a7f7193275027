import type { SafeRecord } from '../compiled-template.js';
import type { RunLimitSettings } from './limit-views.js';
import { peekRateLimit, type AdmissionLimits, type CompiledRateLimit } from './rate-limit.js';
import { renderLimitKey } from './limit-key.js';
import type { CompiledRunLimitKeys } from './run-limit-keys.js';

/** What of a compiled mapping (src/mapping/compiled.ts) its limits' explanation reads. */
export interface LimitedMapping {
  readonly id: string;
  readonly rateLimit?: CompiledRateLimit | undefined;
  readonly runLimitKeys?: CompiledRunLimitKeys | undefined;
}

/** One limit of the winning mapping as `hookgate try` shows it: its key for this delivery and what it would do right now. */
export interface LimitExplanation {
  limit: 'rateLimit' | 'throttle' | 'concurrency' | 'budget';
  key?: string;
  verdict: string;
}

/**
 * The mapping's limits for this delivery, without counting it: the rate limit's verdict from its
 * bucket (when a store is at hand), and the run gates' keys (they delay runs, never refuse them).
 */
export async function explainLimits(mapping: LimitedMapping, config: RunLimitSettings, context: SafeRecord, limits: AdmissionLimits | undefined): Promise<LimitExplanation[]> {
  const out: LimitExplanation[] = [];
  if (mapping.rateLimit !== undefined) {
    if (limits === undefined) out.push({ limit: 'rateLimit', key: renderLimitKey(mapping.rateLimit.key, context, mapping.id, 'rateLimit.key'), verdict: 'not checked (no store)' });
    else {
      const { verdict, key, retryAfterMs } = await peekRateLimit(mapping.id, mapping.rateLimit, context, limits);
      out.push({ limit: 'rateLimit', key, verdict: verdict === 'admitted' ? 'admitted' : `${verdict} (a delivery conforms again in ${Math.ceil(retryAfterMs / 1000)} s)` });
    }
  }
  if (config.throttle !== undefined) {
    const key = renderLimitKey(mapping.runLimitKeys?.throttle, context, mapping.id, 'throttle.key');
    out.push({ limit: 'throttle', key, verdict: `admitted; runs of this key start at most ${config.throttle.limit} per ${config.throttle.periodSeconds} s` });
  }
  if (config.concurrency !== undefined) {
    const key = renderLimitKey(mapping.runLimitKeys?.concurrency, context, mapping.id, 'concurrency.key');
    out.push({ limit: 'concurrency', key, verdict: `admitted; at most ${config.concurrency.limit} run(s) of this key execute at once` });
  }
  if (config.budget !== undefined) out.push({ limit: 'budget', verdict: 'admitted; past the budget runs wait queued (see hookgate status)' });
  return out;
}
