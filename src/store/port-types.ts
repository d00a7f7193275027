/**
 * The data that crosses the store port (src/store/port.ts): rows the runtime works on, the views
 * the run endpoint, the console and `hookgate status` show, and the outcomes of deliveries. Every
 * adapter returns exactly these shapes; times are milliseconds since the epoch unless a field is
 * an ISO 8601 string (views).
 */

import type { FollowUpRun, HandoffRecord } from './handoff-types.js';

// ---- deliveries (the runtime's channels report these; the store keeps them) ----

export type DeliveryOutcome =
  | { status: 'delivered'; channel: string; to: string; parts: number; attempts: number }
  | { status: 'failed'; channel: string; to?: string; reason: string; attempts: number };

export type SkippedDelivery = { status: 'skipped'; reason: string };

/** What a run's or a heartbeat's `delivery` holds. */
export type RecordedDelivery = DeliveryOutcome | SkippedDelivery;

/** One row of `deliveries`: an attempt, or a decision not to deliver. */
export interface DeliveryRecord {
  at: number;
  runId?: string;
  heartbeatId?: number;
  channel: string;
  recipient?: string;
  status: 'delivered' | 'failed' | 'skipped';
  /** Kept only for the `log` channel, whose whole point is keeping the text in the store. */
  text?: string;
  reason?: string;
}

// ---- runs ----

export type RunStatus = 'queued' | 'running' | 'ok' | 'error' | 'timeout' | 'interrupted';
export type FinishedStatus = 'ok' | 'error' | 'timeout' | 'interrupted';

/** A stored run as the runtime executes it (`action` is the sealed AgentAction as JSON). */
export interface RunRow {
  run_id: string;
  created_at: number;
  status: RunStatus;
  hook: string;
  name: string;
  session_key: string;
  action: string;
  attempts: number;
  started_at: number | null;
  finished_at: number | null;
  reply: string | null;
  summary: string | null;
  error: string | null;
  /** A RecordedDelivery as JSON. */
  delivery: string | null;
  /** The run this one retries (a manual retry), else null. */
  retry_of: string | null;
  /** `notify`: the action is a NotifyAction (no model, empty session_key). Absent or `agent`: an AgentAction. */
  kind?: RunKind;
  /** Why a queued run waits (a gate), and until when at the earliest; absent or null when it waits for nothing but a slot. */
  waiting_for?: string | null;
  not_before?: number | null;
  /** The run's notes (RunView.notes) as a JSON array; absent or null when there are none. */
  notes?: string | null;
  /** A forward or callback run's HandoffRecord as JSON (its target and the last answer); absent or null before the first attempt. */
  handoff?: string | null;
  /** A relay run's target (docs/relay.md); absent or null for any other run. */
  relay_target?: string | null;
}

/**
 * `forward`: a wake or agent action handed to a target (docs/forward.md); `callback`: a run-finished
 * document sent to one; `relay`: an action held for a relay target's consumers (docs/relay.md),
 * which the runtime never claims.
 */
export type RunKind = 'agent' | 'notify' | 'forward' | 'callback' | 'relay';

/** Where a run stands for a caller waiting on it: the reply is set once the run ended with one. */
export interface RunCompletion {
  status: RunStatus;
  reply?: string;
}

/** What GET {hooks.path}/runs/<runId>, the console and `hookgate status` show: never the message or the raw reply. */
export interface RunView {
  runId: string;
  status: RunStatus;
  hook: string;
  name: string;
  sessionKey: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  summary?: string;
  error?: string;
  delivery?: RecordedDelivery;
  /** Set on a manual retry: the run it retries. */
  retryOf?: string;
  /** Set on a run that was retried: the retry's run id (only in the single-run view). */
  retriedBy?: string;
  attempts: number;
  /** Set on a notify (text sent straight to a channel, no model; its sessionKey is empty), a forward and a callback; absent on agent runs. */
  kind?: Exclude<RunKind, 'agent'>;
  /** A forward or callback run: its target and what it answered last (docs/forward.md). */
  handoff?: HandoffRecord;
  /** A queued run: what it waits for (`slot`: a free executor), and the earliest it may start when known. */
  waitingFor?: string;
  notBefore?: string;
  /** Short remarks on how the run was carried out (`thinking "high" not sent: …`); absent when there are none. */
  notes?: string[];
}

export interface RunFilter {
  status?: RunStatus;
  hook?: string;
  sessionKey?: string;
  /** Cursor: only runs created before this run (by creation time, then insertion order). */
  before?: string;
  limit: number;
}

/** A claim of a queued run by one executor (an instance of the service) until `leaseUntil`. */
export interface RunClaim {
  /** Who executes it: the runtime's instance id. */
  owner: string;
  at: number;
  /** The claim is held until then unless renewed; after it, recovery may take the run over. */
  leaseUntil: number;
  /** Aborted (the runtime stopped) before the claim could be written: nothing is written, claim() resolves false. */
  signal?: AbortSignal;
}

/** The end of a run and everything recorded with it, in one transaction. */
export interface RunFinish {
  status: FinishedStatus;
  at: number;
  summary: string;
  reply?: string;
  error?: string;
  /** The exchange appended to the run's session transcript (ok runs). */
  exchange?: { sessionKey: string; user: string; assistant: string };
  /** The summary posted to the main session. */
  event?: NewEvent;
  /** A decision not to deliver, recorded as a `skipped` delivery and as the run's delivery. */
  skipped?: Omit<DeliveryRecord, 'status' | 'at' | 'runId' | 'heartbeatId'> & { reason: string };
  /** The run's notes (RunView.notes); they replace those of an earlier attempt, none clears them. */
  notes?: readonly string[];
  /** The run's delivery when it was made before the end (a notify's delivery is its whole run). */
  delivery?: RecordedDelivery;
  /** A forward or callback run: its target's last answer. */
  handoff?: HandoffRecord;
  /** A run to queue in the same transaction (the callback of this run's end). */
  followUp?: FollowUpRun;
}

/** What recovery decides for a run a previous (or dead) executor left mid-way. */
export type RecoveryDecision = { kind: 'requeue'; reason: string } | { kind: 'finish'; end: RunFinish };

export type RetryOutcome =
  /** A new queued run was written; `runId` is its id. */
  | { kind: 'queued'; runId: string }
  /** The run was retried before: the first retry's id, nothing written (retries are idempotent per run). */
  | { kind: 'existing'; runId: string }
  | { kind: 'not-found' }
  /** Still queued or running, or it ended ok: nothing to retry. */
  | { kind: 'not-retryable'; status: RunStatus };

/** Statuses a run may be retried from: it ended without doing its job. */
export const RETRYABLE_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>(['error', 'timeout', 'interrupted']);

// ---- the main session: events and heartbeats ----

export interface PendingEvent {
  id: number;
  created_at: number;
  text: string;
  mode: 'now' | 'next-heartbeat';
  /** 1 only for text a mapping declared trusted; everything else goes inside the prompt's envelope. */
  trusted: number;
}

export interface NewEvent {
  at: number;
  text: string;
  mode: 'now' | 'next-heartbeat';
  hook: string;
  mappingId?: string;
  runId?: string;
}

/** The end of a heartbeat and what is recorded with it, in one transaction. */
export type HeartbeatFinish =
  | { status: 'error'; at: number; error: string }
  | {
      status: 'ok';
      at: number;
      reply: string;
      /** Events the turn read: marked consumed by this heartbeat, each only if still pending. */
      consume: readonly number[];
      /** The exchange appended to the main session's transcript. */
      exchange: { sessionKey: string; user: string; assistant: string };
      /** Set when the reply is not delivered (an acknowledgment): recorded as a skipped delivery. */
      skipped?: { channel: string; reason: string };
    };

export interface HeartbeatRow {
  id: number;
  started_at: number;
  finished_at: number | null;
  status: 'running' | 'ok' | 'error';
  event_count: number;
  error: string | null;
  delivery: string | null;
}

export interface HeartbeatView {
  id: number;
  status: string;
  startedAt: string;
  finishedAt?: string;
  events: number;
  reply?: string;
  error?: string;
  delivery?: RecordedDelivery;
}

export interface EventView {
  id: number;
  createdAt: string;
  mode: string;
  hook: string;
  mappingId?: string;
  runId?: string;
  chars: number;
  /** Only for run summaries (text the agent wrote), or when the caller asks for payload text. */
  text?: string;
}

export interface TranscriptMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** The last successful route of the main session (state `last_route`). */
export interface StoredRoute {
  channel: string;
  to?: string;
}

// ---- the Gmail source ----

/** What the Gmail watcher keeps per mailbox, read by `hookgate status` too. */
export interface GmailStateRow {
  account: string;
  historyId: string | undefined;
  watchExpiration: number | undefined;
  mode: string | undefined;
  lastError: string | undefined;
  updatedAt: number;
}

// ---- health ----

/** What waits or executes now: cheap to count at every metrics scrape (finished runs are not counted). */
export interface QueueDepths {
  pendingEvents: number;
  /** `debounced`: pending debounce groups that will each become a run (agent or notify groups, open or firing). */
  runs: { queued: number; running: number; debounced: number };
}

/** Model calls in a window, by origin: agent runs and heartbeats (main-session turns) that started in it. */
export interface ModelCalls {
  runs: number;
  heartbeats: number;
}
