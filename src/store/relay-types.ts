/**
 * The events a relay target holds for its consumers (docs/relay.md), as the store port keeps
 * them: runs of kind `relay`, queued until a consumer acknowledges them, handed out under leases.
 */
import type { RunFinish, RunRow } from './port-types.js';

/** One event handed to a consumer. */
export interface RelayEvent {
  /** The run id: the same on every delivery (the consumer's idempotency key). */
  id: string;
  createdAt: number;
  /** The stored (sealed) action as JSON. */
  action: string;
  /** How often it was handed out, this time included. */
  deliveries: number;
}

/** A consumer asking for the next events of a target. */
export interface RelayLease {
  target: string;
  consumer: string;
  max: number;
  at: number;
  /** The events are this consumer's until then unless acknowledged. */
  leaseUntil: number;
}

/** A consumer's word on one event: its local target took it, or refused it for good (with why). */
export type RelayAck = { id: string; taken: true } | { id: string; taken: false; reason: string };

/**
 * What became of one acknowledgement: `acked` (it ends now), `already-acked` (it ended ok before: a
 * repeat), `not-leased` (it waits for a consumer or is leased to another one), `ended` (it ended
 * otherwise: dropped by retention), `unknown` (no event of this target has that id).
 */
export type RelayAckResult = 'acked' | 'already-acked' | 'not-leased' | 'ended' | 'unknown';

export interface RelayAcks {
  target: string;
  consumer: string;
  at: number;
  acks: readonly RelayAck[];
}

/** A relay target's backlog and its consumers, for `hookgate status`, the console and metrics. */
export interface RelayTargetView {
  target: string;
  /** Events not acknowledged yet, leased or not. */
  backlog: number;
  /** Of the backlog, those under a lease still running at `now`. */
  leased: number;
  /** When the oldest of the backlog was accepted (ms). */
  oldestAt?: number;
  /** Consumers that asked for events, the most recent first (ms). */
  consumers: Array<{ consumer: string; lastSeen: number }>;
}

/** What every adapter keeps of relay targets (Store.relay). */
export interface RelayStore {
  /**
   * Hands up to `max` of the target's events to `consumer` until `leaseUntil`, oldest first: those
   * not leased, whose lease ran out, or leased to this same consumer. An event waits while an
   * earlier one with the same non-empty session key is leased to another consumer (per session
   * key, in order). Each handed-out event's `deliveries` grows by one. Two concurrent callers never
   * get the same event while its lease runs.
   */
  lease(request: RelayLease): Promise<RelayEvent[]>;
  /**
   * Ends each acknowledged event that the consumer was the last to lease (its lease may have run
   * out, as long as nobody leased it since) with `end(row, ack)` (pure, synchronous: the run's end,
   * its callback included), all in one transaction; the results are in the order of the acks.
   */
  acknowledge(request: RelayAcks, end: (row: RunRow, ack: RelayAck) => RunFinish): Promise<RelayAckResult[]>;
  /**
   * Ends the target's unacknowledged events accepted before `before` (leased or not) with
   * `end(row)`, at most `limit` of them, oldest first; resolves with the ids it ended.
   */
  dropOlderThan(target: string, before: number, limit: number, end: (row: RunRow) => RunFinish): Promise<string[]>;
  /** Records that `consumer` asked for the target's events at `at`; consumers not seen for a week are forgotten. */
  seen(target: string, consumer: string, at: number): Promise<void>;
  /** The backlog and consumers of each of `targets`, in that order. */
  overview(targets: readonly string[], now: number): Promise<RelayTargetView[]>;
}

/** What a forced start of a relay run is told (limits.forceStart): nothing of it runs here. */
export const RELAY_HELD = "held for a relay target's consumers";

/** Consumers unseen this long are no longer listed. */
export const RELAY_CONSUMER_MEMORY_MS = 7 * 24 * 3_600_000;
/** At most this many consumers are listed per target. */
export const RELAY_CONSUMERS_LISTED = 10;

/** The acknowledgement results of rows found for some ids (id → the row's status and last consumer). */
export function ackResult(found: Pick<RunRow, 'status'> & { claimed_by?: string | null } | undefined, consumer: string): RelayAckResult {
  if (found === undefined) return 'unknown';
  if (found.status === 'ok') return 'already-acked';
  if (found.status !== 'queued') return 'ended';
  return found.claimed_by === consumer ? 'acked' : 'not-leased';
}
