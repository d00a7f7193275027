import Type from 'typebox';
import { ConfigError } from '../../errors.js';
import { defineTarget } from '../define.js';
import { targetSettings } from '../settings-schema.js';

/** Defaults of a relay target (docs/relay.md). */
export const RELAY_DEFAULTS = { retentionHours: 168, leaseSeconds: 60 } as const;

const RelayTargetSchema = Type.Object(
  {
    kind: Type.Literal('relay'),
    tokens: Type.Array(Type.String({ minLength: 16 }), {
      minItems: 1,
      description:
        "Tokens a consumer (`hookgate relay`) pulls this target's events with, as `Authorization: Bearer <token>`; they read this target only. Several: rotate one while the others work. Not the hook token nor the gateway token.",
    }),
    retentionHours: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 8760, description: `Events not acknowledged this long after they were accepted are dropped (their runs end \`error\`). Default ${RELAY_DEFAULTS.retentionHours}.` }),
    ),
    leaseSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3600, description: `How long a pulled event stays with its consumer; not acknowledged by then, it is handed out again. Default ${RELAY_DEFAULTS.leaseSeconds}.` }),
    ),
  },
  { additionalProperties: false, description: 'Holds the actions forwarded to it in the store until a consumer next to the gateway pulls and acknowledges them (docs/relay.md).' },
);

/**
 * `relay`: nothing is POSTed from here. An action forwarded to it is a run of kind `relay` that
 * stays queued until a consumer (`hookgate relay`, behind NAT) pulls it with one of the target's
 * tokens and acknowledges it once its own gateway took it. The pull API is src/http/relay-routes.ts.
 */
export const relayTarget = defineTarget({
  kind: 'relay',
  summary: 'holds actions in the store for a consumer behind NAT to pull (hookgate relay)',
  configSchema: RelayTargetSchema,
  takes: { actions: true, callbacks: false },
  held: true,
  create(name, config) {
    const repeated = config.tokens.findIndex((token, index) => config.tokens.indexOf(token) !== index);
    if (repeated !== -1) throw new ConfigError([{ path: `/targets/${name}/tokens/${repeated}`, message: `target "${name}": a token is listed twice` }]);
    return {
      name,
      kind: 'relay',
      settings: targetSettings({}),
      relay: {
        tokens: config.tokens,
        retentionMs: (config.retentionHours ?? RELAY_DEFAULTS.retentionHours) * 3_600_000,
        leaseMs: (config.leaseSeconds ?? RELAY_DEFAULTS.leaseSeconds) * 1000,
      },
    };
  },
});
