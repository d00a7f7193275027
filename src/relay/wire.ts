import Type, { type Static } from 'typebox';

/**
 * The pull API of a relay target (docs/relay.md), as the edge serves it (src/http/relay-routes.ts)
 * and `hookgate relay` calls it (src/relay/client/): one definition of paths, bounds and bodies.
 *
 *   GET  {hooks.path}/relay/<target>/events?consumer=<name>&wait=<s>&max=<n>
 *   POST {hooks.path}/relay/<target>/ack   { consumer, ids, refused? }
 */

/** The longest a pull may wait for events (seconds): below the idle timeouts of common proxies. */
export const MAX_WAIT_SECONDS = 55;
/** The most events one pull hands out. */
export const MAX_EVENTS = 100;
/** The most ids one acknowledgement carries. */
export const MAX_ACKS = 1000;
/** A consumer's name: what `hookgate status` and the console list, and whose leases are whose. */
export const CONSUMER_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$';

export function relayPaths(hooksPath: string, target: string): { events: string; ack: string } {
  const base = `${hooksPath}/relay/${encodeURIComponent(target)}`;
  return { events: `${base}/events`, ack: `${base}/ack` };
}

/** One event of a pull's answer: the `http` target's `hookgate.action.v1` document, and its lease. */
export interface WireEvent {
  /** The run id on the edge: the same on every delivery, and the document's `id`. */
  id: string;
  /** How often it was handed out, this time included: above 1 it may have reached the gateway before. */
  deliveries: number;
  /** When the lease ends (ISO 8601): not acknowledged by then, it is handed out again. */
  leaseUntil: string;
  document: Record<string, unknown>;
}

/** The answer to a pull: the events leased to the consumer, and what is left for the target. */
export interface PullAnswer {
  ok: true;
  events: WireEvent[];
  /** Events of the target not acknowledged yet (these included). */
  backlog: number;
}

const Id = Type.String({ minLength: 1, maxLength: 200 });

export const AckBodySchema = Type.Object(
  {
    consumer: Type.String({ pattern: CONSUMER_PATTERN }),
    ids: Type.Array(Id, { maxItems: MAX_ACKS }),
    refused: Type.Optional(Type.Array(Type.Object({ id: Id, reason: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }), { maxItems: MAX_ACKS })),
  },
  { additionalProperties: false },
);
/** `ids`: taken by the consumer's gateway; `refused`: refused by it for good (the run ends `error` with the reason). */
export type AckBody = Static<typeof AckBodySchema>;

export interface AckAnswer {
  ok: true;
  /** One per id, `ids` first then `refused`: acked, already-acked, not-leased, ended, unknown (src/store/relay-types.ts). */
  results: Array<{ id: string; result: string }>;
}
