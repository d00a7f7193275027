import Type, { type Static } from 'typebox';

/** Flow-control settings of a mapping and of the service (docs/run-limits.md, docs/flow-control.md). */

const limit = (what: string) => Type.Integer({ minimum: 1, description: `${what} (a positive integer).` });
const period = Type.Integer({ minimum: 1, description: 'Length of the period, in seconds (a positive integer).' });
const key = (what: string) =>
  Type.Optional(Type.String({ description: `Template rendered from the delivery: ${what} has its own bucket per key. Empty or absent: one shared bucket for the mapping.` }));

const rateLimitFields = {
  limit: limit('Deliveries admitted per period and key'),
  periodSeconds: period,
  key: key('each rendered key'),
  over: Type.Optional(
    Type.Union([Type.Literal('skip'), Type.Literal('reject')], {
      description: 'Past the limit: `skip` (default) answers 200 {"ok":true,"skipped":"rate-limit"} and does nothing; `reject` answers 429 RATE_LIMITED with Retry-After and stores nothing.',
    }),
  ),
};
const throttleFields = {
  limit: limit('Run starts per period and key'),
  periodSeconds: period,
  burst: Type.Optional(Type.Integer({ minimum: 0, description: 'Extra starts allowed back to back after a quiet spell. Default 0.' })),
  key: key('each rendered key'),
};
const concurrencyFields = {
  limit: limit('Runs of one key executing at once'),
  key: key('each rendered key'),
};
const budgetFields = {
  runsPerHour: Type.Optional(limit('Run starts per rolling hour')),
  runsPerDay: Type.Optional(limit('Run starts per rolling 24 hours')),
};
const closed = (description: string) => ({ additionalProperties: false, description }) as const;

export const RateLimitSchema = Type.Object(
  rateLimitFields,
  closed('Admission rate limit (GCRA): at most `limit` deliveries per `periodSeconds` per key; checked before templates and transforms.'),
);

export const ThrottleSchema = Type.Object(
  throttleFields,
  closed('Runs are admitted (202) but start at most `limit` per `periodSeconds` per key (plus `burst`); the rest wait queued, in arrival order.'),
);

export const ConcurrencySchema = Type.Object(
  concurrencyFields,
  closed('At most `limit` runs per key execute at once (on top of agents.defaults.maxConcurrent; across instances on PostgreSQL).'),
);

export const BudgetSchema = Type.Object(
  budgetFields,
  closed('Run starts per rolling hour and/or day. Past it runs wait queued (never dropped) until the window frees; `hookgate runs start <id> --force` starts one past it.'),
);

export const CircuitBreakerSchema = Type.Object(
  {
    failures: Type.Integer({ minimum: 1, default: 5, description: 'Consecutive provider failures (connection errors, 5xx, 429, timeouts) that open a provider\'s circuit.' }),
    openSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 300, description: 'How long the circuit first stays open; each failed probe doubles it, up to an hour.' }),
  },
  { additionalProperties: false, description: 'Per-provider circuit breaker: while open, runs on that provider wait queued instead of failing; then one probe run decides.' },
);

export const AlertsSchema = Type.Object(
  {
    channel: Type.String({ minLength: 1, description: 'A configured channel (e.g. `telegram`, `log`).' }),
    to: Type.Optional(Type.String({ minLength: 1, description: 'Recipient on that channel; default the last recipient a heartbeat reply reached there.' })),
  },
  {
    additionalProperties: false,
    description: 'Short operator messages (names and counts, never payload text) when a circuit opens or closes, a budget runs out or a rate limit starts skipping; at most one per condition per 10 minutes.',
  },
);

export type RateLimitConfig = Static<typeof RateLimitSchema>;
export type ThrottleConfig = Static<typeof ThrottleSchema>;
export type ConcurrencyConfig = Static<typeof ConcurrencySchema>;
export type BudgetConfig = Static<typeof BudgetSchema>;
export type AlertsConfig = Static<typeof AlertsSchema>;

/** A mapping's flow-control fields, spread into MappingSchema. */
export const MappingLimitFields = {
  rateLimit: Type.Optional(RateLimitSchema),
  throttle: Type.Optional(ThrottleSchema),
  concurrency: Type.Optional(ConcurrencySchema),
  budget: Type.Optional(BudgetSchema),
};

/**
 * A sender preset's flow-control options (presets/sender.ts): the same keys, applied to every
 * mapping of the preset with one bucket, count or budget for the preset as a whole.
 */
export const PresetLimitFields = {
  rateLimit: Type.Optional(
    Type.Object(rateLimitFields, closed('As a mapping\'s `rateLimit`, over all the preset\'s deliveries: its event types share one bucket per rendered key.')),
  ),
  throttle: Type.Optional(Type.Object(throttleFields, closed('As a mapping\'s `throttle`, over all the preset\'s runs: one bucket per rendered key, whatever the event type.'))),
  concurrency: Type.Optional(
    Type.Object(concurrencyFields, closed('As a mapping\'s `concurrency`, over all the preset\'s runs: at most `limit` per rendered key at once, whatever the event type.')),
  ),
  budget: Type.Optional(
    Type.Object(budgetFields, closed('Run starts of the whole preset (all its event types together) per rolling hour and/or day, as a mapping\'s `budget`; shown as `preset:<name>` in `hookgate status`.')),
  ),
};

/** The service-wide fields, spread into agents.defaults. */
export const DefaultsLimitFields = {
  maxQueued: Type.Integer({
    minimum: 1,
    default: 10000,
    description: 'Back-pressure: with this many runs queued, new agent and notify admissions get 503 SERVER_BUSY with Retry-After (nothing is acknowledged, so nothing is lost).',
  }),
  budget: Type.Optional(BudgetSchema),
  circuitBreaker: Type.Optional(CircuitBreakerSchema),
  alerts: Type.Optional(AlertsSchema),
};
