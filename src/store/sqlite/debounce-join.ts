import type { DatabaseSync } from 'node:sqlite';
import type { AcceptedResponse } from '../../actions/types.js';
import { debouncedResponse, type DebounceAcceptance, type DebounceJoin, type DebounceOutcome, type JoinedGroup } from '../debounce-port.js';
import { bytesAfterJoin, groupIdOf, groupKeyHash, openedGroup, rearmed, shortKey, storedMember, takesMember } from '../debounce-rows.js';
import { prepareCached } from './connection.js';
import type { TransactionBuckets } from './transaction-buckets.js';

/** A join's answer inside its transaction; `conflict` becomes IDEMPOTENCY_CONFLICT for its caller alone. */
export type JoinResult = DebounceOutcome | { kind: 'conflict' };
export type JoinItem = { acceptance: DebounceAcceptance; at: number };

/**
 * The SQL of one request's joins, inside the caller's write transaction (the ingress writer
 * thread's, src/store/sqlite/writer-serve.ts): its key judged first, then its rate hit, then each
 * join into the open group of its key or a new one, then the key stored with the response.
 */
export function joinAll(db: DatabaseSync, acceptance: DebounceAcceptance, at: number, ttlMs: number, buckets: TransactionBuckets): JoinResult {
  const { idempotency } = acceptance;
  if (idempotency !== undefined) {
    const row = prepareCached(db, 'SELECT fingerprint, response FROM idempotency WHERE key = ? AND created_at > ?').get(idempotency.key, at - ttlMs) as { fingerprint: string; response: string } | undefined;
    if (row !== undefined) return row.fingerprint === idempotency.fingerprint ? { kind: 'replayed', response: JSON.parse(row.response) as AcceptedResponse } : { kind: 'conflict' };
  }
  if (acceptance.rateHit !== undefined) {
    const verdict = buckets.hit(acceptance.rateHit);
    if (!verdict.allowed) return { kind: 'rate-limited', retryAfterMs: verdict.retryAfterMs };
  }
  const groups = acceptance.joins.map((join) => joinOne(db, join, at));
  const response = debouncedResponse(acceptance.joins, groups.map((group) => group.groupId));
  if (idempotency !== undefined) {
    prepareCached(db, 'INSERT OR REPLACE INTO idempotency (key, created_at, fingerprint, response) VALUES (?, ?, ?, ?)').run(idempotency.key, at, idempotency.fingerprint, JSON.stringify(response));
  }
  return { kind: 'committed', response, groups };
}

/** The open group a join of a key goes into: the newest whose fire time is still ahead (key hash, now). */
export const OPEN_GROUP_OF_KEY = "SELECT group_id, deliveries, bytes, max_at FROM debounce_groups WHERE key_hash = ? AND status = 'open' AND fire_at > ? ORDER BY created_at DESC LIMIT 1";

type OpenGroup = { group_id: string; deliveries: number; bytes: number; max_at: number };

function joinOne(db: DatabaseSync, join: DebounceJoin, at: number): JoinedGroup {
  const hash = groupKeyHash(join);
  const open = prepareCached(db, OPEN_GROUP_OF_KEY).get(hash, at) as OpenGroup | undefined;
  const member = storedMember(join);
  if (open !== undefined && takesMember(join, open, member.bytes)) {
    const firesAt = rearmed(join, open, at);
    const deliveries = Number(open.deliveries) + 1;
    prepareCached(db, 'UPDATE debounce_groups SET deliveries = ?, fire_at = ?, bytes = ? WHERE group_id = ?').run(deliveries, firesAt, bytesAfterJoin(join, open, member.bytes), open.group_id);
    // keep "last" needs only the newest action: the older ones are dropped as it arrives.
    if (join.keep === 'last') prepareCached(db, 'DELETE FROM debounce_members WHERE group_id = ?').run(open.group_id);
    prepareCached(db, 'INSERT INTO debounce_members (group_id, seq, created_at, action) VALUES (?, ?, ?, ?)').run(open.group_id, deliveries, at, member.json);
    return { groupId: open.group_id, opened: false, deliveries, firesAt };
  }
  // A full group is due now; its fire time no longer ahead, no later join goes into it.
  if (open !== undefined) prepareCached(db, 'UPDATE debounce_groups SET fire_at = ? WHERE group_id = ?').run(at, open.group_id);
  const groupId = groupIdOf(join);
  const { fireAt, maxAt } = openedGroup(join, at);
  prepareCached(
    db,
    `INSERT INTO debounce_groups (group_id, key_hash, mapping_id, group_key, kind, keep, max_chars, status, deliveries, bytes, created_at, fire_at, max_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'open', 1, ?, ?, ?, ?)`,
  ).run(groupId, hash, join.mappingId, shortKey(join.key), join.action.kind, join.keep, join.maxChars, member.bytes, at, fireAt, maxAt);
  prepareCached(db, 'INSERT INTO debounce_members (group_id, seq, created_at, action) VALUES (?, 1, ?, ?)').run(groupId, at, member.json);
  return { groupId, opened: true, deliveries: 1, firesAt: fireAt, ...(open === undefined ? {} : { closed: open.group_id }) };
}
