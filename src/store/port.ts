import type { AdmittedAction, AcceptedResponse } from '../actions/types.js';
import type { Logger } from '../log.js';
import type {
  DeliveryRecord,
  GmailStateRow,
  HeartbeatFinish,
  HeartbeatRow,
  HeartbeatView,
  EventView,
  NewEvent,
  ModelCalls,
  PendingEvent,
  QueueDepths,
  RecordedDelivery,
  RecoveryDecision,
  RetryOutcome,
  RunClaim,
  RunCompletion,
  RunFilter,
  RunFinish,
  RunRow,
  RunStatus,
  RunView,
  StoredRoute,
  TranscriptMessage,
} from './port-types.js';
import type { LimitStore, RateHitRequest } from './limit-types.js';
import type { RunReschedule } from './handoff-types.js';
import type { RelayStore } from './relay-types.js';

import type { DebounceStore } from './debounce-port.js';
import type { OwnMark } from '../own-messages.js';

export type * from './port-types.js';
export type * from './debounce-port.js';
export type * from './limit-types.js';
export type * from './handoff-types.js';
export type * from './relay-types.js';
export { RETRYABLE_STATUSES } from './port-types.js';

/**
 * THE STORE PORT: everything the rest of Hookgate asks of its database. Nothing outside
 * src/store/ talks to a database; it gets a `Store` (from src/store/open.ts) and uses these
 * methods. Each adapter (src/store/sqlite/, src/store/postgres/) implements all of them and passes
 * the contract suite in test/store/contract/.
 *
 * Every method that touches the database returns a Promise, so a networked database fits behind
 * it. A method that writes several things (a run's end, a heartbeat's end, a delivery and the
 * route it makes the last one) writes them in ONE transaction: all or nothing. A rejected write
 * wrote nothing. Several instances of the service may share one database (PostgreSQL): claims carry
 * an owner and a lease, the main session's heartbeat runs under a lock, and consuming events is
 * exactly once.
 */
export interface Store {
  readonly ingress: IngressStore;
  readonly runs: RunStore;
  readonly session: MainSessionStore;
  readonly transcripts: TranscriptStore;
  readonly deliveries: DeliveryStore;
  readonly state: StateStore;
  readonly gmail: GmailStore;
  /** Durable debounce groups (src/store/debounce-port.ts). */
  readonly debounce: DebounceStore;
  /** Rate limits, run gates and provider circuits (src/store/limit-types.ts). */
  readonly limits: LimitStore;
  /** What the service posted itself, so its own messages coming back are skipped (src/own-messages.ts). */
  readonly ownMessages: OwnMessageStore;
  /** The events relay targets hold for their consumers (src/store/relay-types.ts, docs/relay.md). */
  readonly relay: RelayStore;
  /**
   * The time (ms since the epoch) every user of this store goes by: leases, rate-limit and throttle
   * buckets, budget windows, debounce windows, pruning. SQLite: this process's clock (one process
   * per file). PostgreSQL: the database's clock, so instances whose own clocks differ agree
   * (docs/deployment.md). Synchronous and cheap: call it for every decision.
   */
  now(): number;
  /** Queue depths for metrics, readiness and agents.defaults.maxQueued: pending events, queued and running runs, pending debounce groups of runs. */
  depths(): Promise<QueueDepths>;
  /**
   * Model calls started at or after `since` (ms), of every instance: agent runs by their start (a
   * run started again after a crash counts its latest start; a notify calls no model) and
   * heartbeats by theirs. Indexed; for `hookgate status`.
   */
  modelCalls(since: number): Promise<ModelCalls>;
  /** Closes the ingress (as ingress.close) and then everything else; later calls reject. Idempotent. */
  close(): Promise<void>;
}

/**
 * One accepted request: its actions and the response its caller gets, committed together. The
 * actions arrive as admitted, unsealed: the adapter seals each one with `sealAction`
 * (src/actions/seal.ts, the pipeline's seal stage) before writing it and reports what the seal
 * flagged; the SQLite adapter does that on its writer thread, off the event loop.
 */
export interface Acceptance {
  actions: readonly AdmittedAction[];
  response: AcceptedResponse;
  idempotency?: { key: string; fingerprint: string };
  /** The mapping's rateLimit, counted in this acceptance's transaction (after its key is judged). */
  rateHit?: RateHitRequest;
}

export type AcceptOutcome =
  | { kind: 'committed'; response: AcceptedResponse }
  /** The key was used before for the same request: the first response again, nothing stored. */
  | { kind: 'replayed'; response: AcceptedResponse }
  /** Its rateHit did not conform: nothing stored, the key not taken; `retryAfterMs` until one would. */
  | { kind: 'rate-limited'; retryAfterMs: number };

/** What the ingress (HTTP hooks, the Gmail source) needs: the durable commit before any 2xx. */
export interface IngressStore {
  /**
   * Resolves only after the acceptance is durably committed (wakes as pending events, agents as
   * queued runs, the key with the response), or after finding its key already used for the same
   * fingerprint within the TTL ('replayed', nothing written). Acceptances arriving together may
   * share one transaction (group commit). Rejects with HookError IDEMPOTENCY_CONFLICT (key used for
   * another fingerprint), STORE_UNAVAILABLE (nothing of it written; retryAfterSeconds set),
   * SHUTTING_DOWN (after close), INTERNAL (its actions could not be sealed; nothing written).
   */
  accept(acceptance: Acceptance): Promise<AcceptOutcome>;
  /** The first response stored with a key still within its TTL; undefined if none. Rejects IDEMPOTENCY_CONFLICT on another fingerprint. */
  replay(key: string, fingerprint: string): Promise<AcceptedResponse | undefined>;
  /**
   * Synchronous and cheap (answered from the last probe, refreshed in the background): false while
   * the store cannot commit (disk full, read-only, database unreachable) or after close.
   */
  isWritable(): boolean;
  /**
   * Calls the listener after each commit with the actions it made durable, as admitted (only
   * 'committed' acceptances; replays and refusals are not reported), before or as their accept()
   * promises resolve. The runtime wakes on it. Returns the unsubscribe function.
   */
  onCommitted(listener: (actions: readonly AdmittedAction[]) => void): () => void;
  /** Commits what is already queued, then refuses new acceptances (SHUTTING_DOWN). The rest of the store stays open. */
  close(): Promise<void>;
}

/** The durable run queue (`runs`). */
export interface RunStore {
  /**
   * Up to `limit` queued runs for the runtime, oldest first (creation time, then insertion order):
   * never a relay run (its consumers pull it: `relay`). With `now`, a run a gate holds until later
   * (`not_before` > now) is left out.
   */
  listQueued(limit: number, now?: number): Promise<RunRow[]>;
  /**
   * queued → running for `claim.owner` until `claim.leaseUntil`, attempts + 1, started_at = at.
   * True for exactly one of any number of concurrent claimers; false when the run is not queued.
   */
  claim(runId: string, claim: RunClaim): Promise<boolean>;
  /** Extends a held claim; false when `owner` no longer holds it (it was taken over or ended). */
  renewLease(runId: string, owner: string, leaseUntil: number): Promise<boolean>;
  /** Ends a run: status, times, summary and, in the same transaction, the exchange, the summary event and a skipped delivery (see RunFinish). */
  finish(runId: string, end: RunFinish): Promise<void>;
  /** A run cut by this instance's shutdown: `interrupted` without finished_at, claim released; recovery takes it up. */
  suspend(runId: string, reason: string): Promise<void>;
  /**
   * A forward or callback run whose target could not take it now (docs/forward.md): running →
   * queued, `waiting_for` 'retry' until `notBefore`, its error and handoff record set, claim released.
   */
  reschedule(runId: string, retry: RunReschedule): Promise<void>;
  /**
   * Takes over the runs nobody executes any more: `running` whose claim is not held (SQLite: every
   * run not claimed by this store object, since one process owns the file; PostgreSQL: lease
   * expired) and `interrupted` without finished_at. For each, `decide` (pure, synchronous) says
   * requeue (queued, started_at cleared, error = reason; attempts kept) or finish; each run is taken
   * over by exactly one caller, and its decision is applied in the same transaction.
   */
  recoverAbandoned(now: number, decide: (row: RunRow) => RecoveryDecision): Promise<{ requeued: number; finished: number }>;
  /** The delivery outcome of a run's reply (after the channel answered). */
  setDelivery(runId: string, delivery: RecordedDelivery): Promise<void>;
  /**
   * A manual retry: a new queued run (newRunId, attempts 0, retry_of = runId) with the same stored
   * action. At most one retry per run, ever: a second call answers 'existing' with the first
   * retry's id. Only from RETRYABLE_STATUSES; 'not-found' / 'not-retryable' write nothing.
   */
  retry(runId: string, newRunId: string, at: number): Promise<RetryOutcome>;
  countByStatus(): Promise<Record<RunStatus, number>>;
  /** A run's status and, once it ended, its reply (for `waitForCompletion`); undefined when unknown. */
  completion(runId: string): Promise<RunCompletion | undefined>;
  /** One run as a view, with `retriedBy` when it was retried; undefined when unknown. */
  view(runId: string): Promise<RunView | undefined>;
  /** The newest runs first, filtered; `next` is the cursor of the following page, absent on the last one. */
  listViews(filter: RunFilter): Promise<{ runs: RunView[]; next?: string }>;
}

/** The main session: its pending events and its heartbeats. */
export interface MainSessionStore {
  /** Appends a pending event; resolves with its id (ids grow in arrival order). */
  addEvent(event: NewEvent): Promise<number>;
  /**
   * The oldest pending events, in arrival order, at most `limit`. With `maxChars`, none after the
   * first whose text takes the running total of the texts past it: every event that fits is
   * listed, and the first that does not (a heartbeat's prompt never holds more).
   */
  listPending(limit: number, maxChars?: number): Promise<PendingEvent[]>;
  /** Pending events; with createdUpTo, only those created at or before it (ms). */
  countPending(createdUpTo?: number): Promise<number>;
  /** The largest id of a pending event, 0 when none. */
  newestPendingId(): Promise<number>;
  /** Whether pending events are due now: mode `now`, or id ≤ dueUpTo. */
  hasDue(dueUpTo: number): Promise<boolean>;
  /**
   * Runs fn while holding the main session's heartbeat lock: at most one heartbeat at a time
   * across every instance sharing the database. Does not wait: { held: false } when another
   * holder has it (fn not called). The lock is released when fn settles. Holding starts when fn
   * is called, not when this is: of callers that race, any one may win.
   */
  withHeartbeatLock<T>(fn: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }>;
  /** Records a heartbeat `running` with its event count; resolves with its id. */
  startHeartbeat(at: number, eventCount: number): Promise<number>;
  /**
   * Ends a heartbeat. On ok, in one transaction: events in `consume` still pending become consumed
   * by it (an event is consumed exactly once, ever), the exchange is appended, a skipped delivery
   * recorded. Resolves with the ids this call consumed (those already consumed elsewhere are not in it).
   */
  finishHeartbeat(id: number, end: HeartbeatFinish): Promise<number[]>;
  setHeartbeatDelivery(id: number, delivery: RecordedDelivery): Promise<void>;
  /** Heartbeats left `running` by an executor that is gone become `error` (their events stay pending); resolves with how many. */
  closeAbandonedHeartbeats(at: number): Promise<number>;
  lastHeartbeat(): Promise<HeartbeatRow | undefined>;
  /** The newest heartbeats first, with replies and delivery outcomes. */
  recentHeartbeats(limit: number): Promise<HeartbeatView[]>;
  /** The oldest pending events as views; a wake's text (payload content) only when includeWakeText. */
  pendingViews(limit: number, includeWakeText: boolean): Promise<EventView[]>;
}

export interface TranscriptStore {
  /**
   * The newest messages of a session whose contents fit maxChars, oldest first. Older exchanges are
   * dropped whole, and the result never starts with an assistant reply whose question was dropped.
   */
  read(sessionKey: string, maxChars: number): Promise<TranscriptMessage[]>;
}

export interface DeliveryStore {
  /**
   * Records one delivery attempt or decision. With `remember` (a heartbeat's successful delivery),
   * in the same transaction, the route becomes the main session's last route (`last_route`) and
   * `remember.to` the channel's last recipient (`last_to:<channel>`).
   */
  record(record: DeliveryRecord, remember?: { channel: string; to: string }): Promise<void>;
  /** The main session's last successful route, if any (an unreadable one counts as none). */
  lastRoute(): Promise<StoredRoute | undefined>;
  /** The last recipient a heartbeat reply reached on a channel. */
  lastRecipient(channel: string): Promise<string | undefined>;
}

/**
 * Marks of the messages the service posted (src/own-messages.ts), shared by every instance: the
 * runtime remembers them around each post, admission asks whether a delivery is one of them.
 */
export interface OwnMessageStore {
  /**
   * Remembers each mark on `channel` until `at + keepMs` (remembered again: the later expiry wins).
   * Marks expired at `at` are deleted in the same transaction, so the table holds only what is in
   * force. Resolves once committed: a delivery judged after that sees them.
   */
  remember(channel: string, marks: readonly OwnMark[], at: number): Promise<void>;
  /** Whether one of `marks` is remembered on `channel` and not expired at `at`. */
  includesAny(channel: string, marks: readonly string[], at: number): Promise<boolean>;
}

/** Small key-values shared by every instance (e.g. `config.reload`). Last write wins. */
export interface StateStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  /** Stores `value` unless the key has one (atomically, across instances); resolves to the stored value. */
  claim(key: string, value: string): Promise<string>;
}

/** The Gmail source's resume points and admitted message ids (per watched mailbox). */
export interface GmailStore {
  read(account: string): Promise<GmailStateRow | undefined>;
  /** Every watched mailbox, by account. */
  readAll(): Promise<GmailStateRow[]>;
  /** Records a history id every message up to which is admitted; never moves backwards (compared as integers). */
  saveHistoryId(account: string, historyId: string): Promise<void>;
  saveWatch(account: string, expiration: number, mode: string): Promise<void>;
  saveError(account: string, error: string | undefined): Promise<void>;
  isAdmitted(account: string, messageId: string): Promise<boolean>;
  /** Remembered forever (unlike idempotency keys); marking twice is harmless. */
  markAdmitted(account: string, messageId: string): Promise<void>;
}

/** What every adapter's opener takes besides its own `storage.*` settings (src/store/open.ts picks the adapter). */
export interface StoreOptions {
  logger: Logger;
  /** hooks.idempotencyTtlHours in ms: how long a key replays its first response. */
  idempotencyTtlMs: number;
  /** The store's time (Store.now) given outright: tests pass a manual clock. */
  now?: () => number;
  /** This process's own clock (default Date.now): the time of a SQLite store; tests skew it. */
  localClock?: () => number;
  /**
   * 'service': the long-running server (the ingress is warmed up at open). 'command': a CLI
   * command (`status`, `runs retry`) that reads and makes single writes beside a running service.
   */
  role: 'service' | 'command';
}

/** A command (`status`, `runs retry`) asked for a store that was never created: nothing to read. */
export class StoreMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreMissingError';
  }
}
