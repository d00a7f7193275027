import Type, { type Static } from 'typebox';
import type { TargetSettings } from './types.js';

/** Defaults of `targets.<name>.retry` and `timeoutSeconds` (applied here: a schema default inside a union is not). */
export const TARGET_DEFAULTS = { maxAttempts: 20, maxAgeHours: 24, minDelaySeconds: 2, maxDelaySeconds: 300, timeoutSeconds: 30 } as const;

const RetrySchema = Type.Object(
  {
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: `Attempts before the run ends \`error\`. Default ${TARGET_DEFAULTS.maxAttempts}.` })),
    maxAgeHours: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 720, description: `A run not handed over this long after it was accepted ends \`error\` at its next failure. Default ${TARGET_DEFAULTS.maxAgeHours}.` }),
    ),
    minDelaySeconds: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: `The first wait; each further one doubles (with jitter). Default ${TARGET_DEFAULTS.minDelaySeconds}.` }),
    ),
    maxDelaySeconds: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: `Cap of any wait, the target's Retry-After included. Default ${TARGET_DEFAULTS.maxDelaySeconds}.` }),
    ),
  },
  { additionalProperties: false, description: 'How failed handoffs are tried again: unreachable, timed out, 408, 409, 425, 429 or 5xx (Retry-After honoured).' },
);

const CircuitSchema = Type.Object(
  {
    failures: Type.Optional(Type.Integer({ minimum: 1, description: 'Consecutive failed handoffs (unreachable, timed out, 408, 409, 425, 429, 5xx) that open the circuit. Default 5.' })),
    openSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'How long it first stays open; each failed probe doubles it, up to an hour. Default 300.' })),
  },
  {
    additionalProperties: false,
    description: "The target's own circuit breaker (else agents.defaults.circuitBreaker applies): while open its runs wait queued instead of failing one by one; then one probe decides.",
  },
);

/** The fields every target kind takes, spread into each kind's schema. */
export const TargetCommonFields = {
  timeoutSeconds: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: `How long one POST may take before it counts as failed (and is retried). Default ${TARGET_DEFAULTS.timeoutSeconds}.` }),
  ),
  retry: Type.Optional(RetrySchema),
  circuitBreaker: Type.Optional(CircuitSchema),
  concurrency: Type.Optional(
    Type.Object(
      { limit: Type.Integer({ minimum: 1, description: 'Runs handed to this target at once, at most (across instances on PostgreSQL).' }) },
      { additionalProperties: false, description: "Bounds the target's runs in flight; for its runs it replaces a mapping's `concurrency`." },
    ),
  ),
};

type CommonConfig = { [K in keyof typeof TargetCommonFields]?: Static<(typeof TargetCommonFields)[K]> };

/** A target's common fields with their defaults, in milliseconds. */
export function targetSettings(config: CommonConfig): TargetSettings {
  const retry = config.retry ?? {};
  const settings: TargetSettings = {
    retry: {
      maxAttempts: retry.maxAttempts ?? TARGET_DEFAULTS.maxAttempts,
      maxAgeMs: (retry.maxAgeHours ?? TARGET_DEFAULTS.maxAgeHours) * 3_600_000,
      minDelayMs: (retry.minDelaySeconds ?? TARGET_DEFAULTS.minDelaySeconds) * 1000,
      maxDelayMs: (retry.maxDelaySeconds ?? TARGET_DEFAULTS.maxDelaySeconds) * 1000,
    },
    timeoutMs: (config.timeoutSeconds ?? TARGET_DEFAULTS.timeoutSeconds) * 1000,
  };
  if (config.circuitBreaker !== undefined) settings.circuitBreaker = { failures: config.circuitBreaker.failures ?? 5, openSeconds: config.circuitBreaker.openSeconds ?? 300 };
  if (config.concurrency !== undefined) settings.concurrency = config.concurrency.limit;
  return settings;
}

/** A target's URL: http(s), no credentials in it (they would reach logs and run views). */
export const TargetUrlSchema = (description: string) => Type.String({ minLength: 1, pattern: '^https?://[^/@\\s]+(/\\S*)?$', description });
