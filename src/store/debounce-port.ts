import type { AcceptedResponse, AdmittedAction } from '../actions/types.js';
import type { RateHitRequest } from './limit-types.js';

/** One action joining (or opening) the pending group of its key. */
export interface DebounceJoin {
  mappingId: string;
  /** The rendered `debounce.key`, non-empty. */
  key: string;
  /** This delivery's action, as admitted (unsealed). Its runId becomes the group's id when it opens one. */
  action: AdmittedAction;
  windowMs: number;
  maxWaitMs: number;
  keep: 'last' | 'all';
  maxChars: number;
  /**
   * keep "all": the most deliveries and bytes of stored actions a group holds. A join that would
   * pass either closes the group (it is due at once) and opens a new one with this delivery.
   */
  maxDeliveries: number;
  maxBytes: number;
}

/** A request's debounced actions, committed together with its idempotency key (all or nothing). */
export interface DebounceAcceptance {
  joins: readonly DebounceJoin[];
  idempotency?: { key: string; fingerprint: string };
  /** The mapping's rateLimit, counted in the join's transaction (after its key is judged). */
  rateHit?: RateHitRequest;
}

export interface JoinedGroup {
  groupId: string;
  /** True when this delivery opened the group. */
  opened: boolean;
  /** Deliveries in the group, this one included. */
  deliveries: number;
  firesAt: number;
  /** The full group (keep "all" past maxDeliveries or maxBytes) this delivery closed instead of joining: it is due at once. */
  closed?: string;
}

export type DebounceOutcome =
  | { kind: 'committed'; response: AcceptedResponse; groups: JoinedGroup[] }
  /** The key was used before for the same request: its first response, nothing joined. */
  | { kind: 'replayed'; response: AcceptedResponse }
  /** Its rateHit did not conform: nothing joined, the key not taken. */
  | { kind: 'rate-limited'; retryAfterMs: number };

/** What a group's one action is: an agent run, a notify (both carry the group's id as run id) or a wake event. */
export type GroupKind = 'agent' | 'notify' | 'wake';

/**
 * A group whose time came, claimed by one firer. No member comes with it: a firing reads the
 * newest (`newestMember`) and the others a page at a time (`members`), so it never holds a whole
 * group in memory, and a claim of many groups reads none of their actions.
 */
export interface DueGroup {
  groupId: string;
  mappingId: string;
  kind: GroupKind;
  keep: 'last' | 'all';
  maxChars: number;
  createdAt: number;
  /** Deliveries that joined; with keep "last" only the newest one's action is stored. */
  deliveries: number;
  /** Members stored (keep "all": one per delivery). */
  stored: number;
}

/** A stored delivery of a group: its place (`seq`, growing in join order) and its action as admitted. */
export interface GroupMember {
  seq: number;
  action: AdmittedAction;
}

export interface DebounceGroupView {
  groupId: string;
  mappingId: string;
  /** The rendered key (cut to 200 characters). */
  key: string;
  kind: GroupKind;
  status: 'open' | 'firing';
  deliveries: number;
  createdAt: number;
  firesAt: number;
}

/**
 * A group that will become a run (an agent run or a notify), shown as the run it becomes before it
 * fires: its hook, name and session are its newest delivery's, as the run's will be (debounce-merge.ts).
 */
export interface PendingRunRow {
  groupId: string;
  mappingId: string;
  kind: 'agent' | 'notify';
  status: 'open' | 'firing';
  hook: string;
  name: string;
  /** Empty for a notify (no session). */
  sessionKey: string;
  deliveries: number;
  createdAt: number;
  firesAt: number;
}

export interface PendingRunFilter {
  hook?: string;
  sessionKey?: string;
  /** Cursor: only groups opened before this one (by creation time, then id). */
  before?: string;
  limit: number;
}

/**
 * Durable debounce groups (src/admission/debounce.ts fires them). A group is open until its
 * fire time (window re-armed by each join, capped by maxWait), then claimed by exactly one firer,
 * which commits its one action through the ingress under the idempotency key
 * `debounceActionKey(groupId)` and then ends the group; a firer that died leaves the claim to lapse,
 * and the next firer's commit of the same key is a replay, never a second action.
 */
export interface DebounceStore {
  /**
   * In one durable transaction: each join goes into the open group of its (mapping, key) whose fire
   * time is still ahead, or opens a group (also when that group is full: it is closed, due at once);
   * the idempotency key is stored with the response. Rejects
   * like IngressStore.accept (IDEMPOTENCY_CONFLICT, STORE_UNAVAILABLE, SHUTTING_DOWN).
   */
  join(acceptance: DebounceAcceptance, at: number): Promise<DebounceOutcome>;
  /** Claims up to `limit` due groups (open with fire time ≤ now, or claimed by a firer whose lease lapsed) for `owner`. */
  claimDue(now: number, owner: string, leaseUntil: number, limit: number): Promise<DueGroup[]>;
  /** Up to `limit` members of a group with seq > `afterSeq`, oldest first (a page of a firing). */
  members(groupId: string, afterSeq: number, limit: number): Promise<GroupMember[]>;
  /** The newest member's action (whose fields the group's action takes); undefined when none is stored. */
  newestMember(groupId: string): Promise<AdmittedAction | undefined>;
  /** Ends a group whose action was committed (removed with its members); no-op if `owner` no longer holds it. */
  fired(groupId: string, owner: string): Promise<void>;
  view(groupId: string): Promise<DebounceGroupView | undefined>;
  /** Open and firing groups, soonest first. */
  listOpen(limit: number): Promise<DebounceGroupView[]>;
  /** The groups that become runs (not wake groups), newest first, as the run list pages: `next` is the cursor when more match. */
  listPendingRuns(filter: PendingRunFilter): Promise<{ runs: PendingRunRow[]; next?: string }>;
  countOpen(): Promise<number>;
  /**
   * For each join, whether it would go into an open group of its key now (adding no run), by the
   * same rule as `join`; a read that takes no lock, so a group may fire or fill in between.
   */
  joinsOpenGroup(joins: readonly DebounceJoin[], at: number): Promise<boolean[]>;
  /**
   * When a firer must next look: the earliest fire time of an open group, or the end of a claim's
   * lease (its firer died or could not commit); undefined when no group is left.
   */
  nextFireAt(): Promise<number | undefined>;
}

/** The idempotency key under which a group's one action is committed. */
export function debounceActionKey(groupId: string): string {
  return `debounce:${groupId}`;
}

/** The answer every delivery of a debounced request gets: the groups' run ids (agent) or the wake mode. */
export function debouncedResponse(joins: readonly DebounceJoin[], groupIds: readonly string[]): AcceptedResponse {
  const runIds = joins.flatMap((join, index) => (join.action.kind === 'wake' ? [] : [groupIds[index] as string]));
  const first = joins[0]?.action;
  // A notify is done once delivered, without a model: 200 unless an agent run is among them.
  const status = joins.some((join) => join.action.kind === 'agent') ? 202 : 200;
  if (joins.length === 1 && first !== undefined && first.kind !== 'wake') return { status, body: { ok: true, runId: runIds[0] as string, debounced: true } };
  if (runIds.length > 0) return { status, body: { ok: true, runIds: [...new Set(runIds)], debounced: true } };
  const mode = first?.kind === 'wake' ? first.mode : 'now';
  return joins.length === 1 ? { status: 200, body: { ok: true, mode, debounced: true } } : { status: 200, body: { ok: true, mode, count: joins.length, debounced: true } };
}
