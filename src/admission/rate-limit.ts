import { HookError } from '../errors.js';
import type { RateLimitConfig } from '../config/limits-schema.js';
import type { LimitStore, RateVerdict } from '../store/port.js';
import type { SafeRecord } from '../mapping/context.js';
import type { CompiledTemplate } from '../mapping/template.js';
import { renderLimitKey } from './limit-key.js';

/**
 * A mapping's admission rate limit (`rateLimit`): GCRA per rendered key, its bucket in the store
 * (src/store/gate-decision.ts), checked after matching and before templates and transforms run.
 */
export interface CompiledRateLimit {
  limit: number;
  periodMs: number;
  over: 'skip' | 'reject';
  key: CompiledTemplate | undefined;
}

export function compileRateLimit(config: RateLimitConfig, compileKey: (source: string) => CompiledTemplate | undefined): CompiledRateLimit {
  return { limit: config.limit, periodMs: config.periodSeconds * 1000, over: config.over ?? 'skip', key: config.key === undefined ? undefined : compileKey(config.key) };
}

/** What admission needs for rate limits: the store's buckets, a clock and who hears of refusals. */
export interface AdmissionLimits {
  store: Pick<LimitStore, 'rateHit'>;
  now: () => number;
  /** A delivery was skipped or rejected by a mapping's rate limit (metrics, alerts). */
  onLimited?: (mappingId: string, over: 'skip' | 'reject') => void;
}

export type RateLimitVerdict = { verdict: 'admitted' | 'skipped' | 'rejected'; key: string; retryAfterMs: number };

export function rateBucket(mappingId: string, key: string): string {
  return `rate:${mappingId}:${key}`;
}

/**
 * Counts the delivery against its key's bucket. Past the limit: `skip` returns the verdict (the
 * caller answers 200 skipped), `reject` throws RATE_LIMITED (429, Retry-After; nothing stored).
 * `peek` (hookgate try) counts nothing and never throws.
 */
export async function checkRateLimit(mappingId: string, rule: CompiledRateLimit, context: SafeRecord, limits: AdmissionLimits, peek = false): Promise<RateLimitVerdict> {
  const key = renderLimitKey(rule.key, context, mappingId, 'rateLimit.key');
  const verdict: RateVerdict = await limits.store.rateHit(rateBucket(mappingId, key), { limit: rule.limit, periodMs: rule.periodMs }, limits.now(), peek);
  if (verdict.allowed) return { verdict: 'admitted', key, retryAfterMs: 0 };
  if (!peek) limits.onLimited?.(mappingId, rule.over);
  if (rule.over === 'reject' && !peek) {
    throw new HookError('RATE_LIMITED', `hook mapping "${mappingId}" is over its rate limit; retry later`, { retryAfterSeconds: Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)) });
  }
  return { verdict: rule.over === 'reject' ? 'rejected' : 'skipped', key, retryAfterMs: verdict.retryAfterMs };
}
