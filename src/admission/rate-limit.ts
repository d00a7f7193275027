import { HookError } from '../errors.js';
import type { RateLimitConfig } from '../config/limits-schema.js';
import type { LimitStore, RateHitRequest } from '../store/port.js';
import type { RateRefusals } from './rate-refusals.js';
import type { CompiledTemplate, SafeRecord } from '../compiled-template.js';
import { renderLimitKey } from './limit-key.js';

/**
 * A mapping's admission rate limit (`rateLimit`): GCRA per rendered key, its bucket in the store
 * (src/store/gate-decision.ts). A delivery is counted in its acceptance's own transaction
 * (`Acceptance.rateHit`), which decides: the hit and the actions commit together or not at all.
 * A refusal is remembered (rate-refusals.ts), so while the bucket stays full the deliveries after
 * it are refused right after matching, before templates and transforms, without a store access.
 */
export interface CompiledRateLimit {
  /** Whose buckets: the mapping's id, or a preset's, whose mappings share one bucket per key. */
  owner: string;
  limit: number;
  periodMs: number;
  over: 'skip' | 'reject';
  key: CompiledTemplate | undefined;
}

export function compileRateLimit(config: RateLimitConfig, owner: string, compileKey: (source: string) => CompiledTemplate | undefined): CompiledRateLimit {
  return { owner, limit: config.limit, periodMs: config.periodSeconds * 1000, over: config.over ?? 'skip', key: config.key === undefined ? undefined : compileKey(config.key) };
}

/** What admission needs for rate limits: the store's buckets, what this process learned of them, a clock and who hears of refusals. */
export interface AdmissionLimits {
  store: Pick<LimitStore, 'rateHit'>;
  refusals: RateRefusals;
  now: () => number;
  /** A delivery was skipped or rejected by a mapping's rate limit (metrics, alerts). */
  onLimited?: (mappingId: string, over: 'skip' | 'reject') => void;
}

export type RateLimitVerdict = { verdict: 'admitted' | 'skipped' | 'rejected'; key: string; retryAfterMs: number };

/** Over the mapping's rateLimit with `over: "skip"`: answered 200 skipped, nothing stored. */
export type RateLimitSkip = { kind: 'skip'; mappingId: string; reason: 'rate-limit'; key: string };

/** A delivery's rate limit still to be counted, in its acceptance's transaction. */
export interface PendingRateLimit {
  hit: RateHitRequest;
  /** The store refused the hit: reported; throws RATE_LIMITED for `over: "reject"`, else the skip. */
  refused(retryAfterMs: number): RateLimitSkip;
}

export function rateBucket(owner: string, key: string): string {
  return `rate:${owner}:${key}`;
}

/** The delivery's verdict from its key's bucket as it stands, counting nothing and never throwing (`hookgate try`, and admission's early refusal). */
export async function peekRateLimit(mappingId: string, rule: CompiledRateLimit, context: SafeRecord, limits: AdmissionLimits, now = limits.now()): Promise<RateLimitVerdict> {
  const key = renderLimitKey(rule.key, context, mappingId, 'rateLimit.key');
  const verdict = await limits.store.rateHit(rateBucket(rule.owner, key), { limit: rule.limit, periodMs: rule.periodMs }, now, true);
  if (verdict.allowed) return { verdict: 'admitted', key, retryAfterMs: 0 };
  return { verdict: rule.over === 'reject' ? 'rejected' : 'skipped', key, retryAfterMs: verdict.retryAfterMs };
}

/**
 * The rate limit of a delivery about to run: refused at once when this process knows its bucket
 * is full (reported; RATE_LIMITED thrown for `reject`), else the hit its acceptance carries, whose
 * refusal by the store is remembered for the deliveries after it.
 */
export function admitRateLimit(mappingId: string, rule: CompiledRateLimit, context: SafeRecord, limits: AdmissionLimits): RateLimitSkip | PendingRateLimit {
  const now = limits.now();
  const key = renderLimitKey(rule.key, context, mappingId, 'rateLimit.key');
  const hit: RateHitRequest = { bucket: rateBucket(rule.owner, key), rule: { limit: rule.limit, periodMs: rule.periodMs }, now };
  const refuse = (retryAfterMs: number): RateLimitSkip => {
    limits.onLimited?.(mappingId, rule.over);
    if (rule.over === 'reject') {
      throw new HookError('RATE_LIMITED', `hook mapping "${mappingId}" is over its rate limit; retry later`, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
    }
    return { kind: 'skip', mappingId, reason: 'rate-limit', key };
  };
  const knownFull = limits.refusals.fullFor(hit.bucket, hit.rule, now);
  if (knownFull !== undefined) return refuse(knownFull);
  return {
    hit,
    refused(retryAfterMs) {
      limits.refusals.remember(hit.bucket, hit.rule, now, retryAfterMs);
      return refuse(retryAfterMs);
    },
  };
}
