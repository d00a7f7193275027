import { createHash, randomUUID } from 'node:crypto';
import type { AdmittedAction } from '../actions/types.js';
import type { DebounceGroupView, DebounceJoin, DueGroup, GroupKind, GroupMember, PendingRunRow } from './debounce-port.js';

/** A debounce_groups row as both adapters read it (times in ms since the epoch). */
export interface GroupRow {
  group_id: string;
  mapping_id: string;
  group_key: string;
  kind: string;
  keep: string;
  max_chars: number;
  status: string;
  deliveries: number;
  created_at: number;
  fire_at: number;
  max_at: number;
}

export const GROUP_COLUMNS = 'group_id, mapping_id, group_key, kind, keep, max_chars, status, deliveries, created_at, fire_at, max_at';

/** Groups are found by this: the key may be long, and the mapping id scopes it. */
export function groupKeyHash(join: Pick<DebounceJoin, 'mappingId' | 'key'>): string {
  return createHash('sha256').update(join.mappingId).update('\n').update(join.key).digest('base64url');
}

/** The new group a join opens: its window, capped by its maximum wait. */
export function openedGroup(join: DebounceJoin, at: number): { fireAt: number; maxAt: number } {
  const maxAt = at + join.maxWaitMs;
  return { fireAt: Math.min(at + join.windowMs, maxAt), maxAt };
}

/** A join re-arms the window, never past the group's maximum wait. */
export function rearmed(join: DebounceJoin, row: Pick<GroupRow, 'max_at'>, at: number): number {
  return Math.min(at + join.windowMs, Number(row.max_at));
}

export function groupIdOf(join: DebounceJoin): string {
  // An agent group's id is the run id its one action will have; wake actions have no id of their own.
  return join.action.kind === 'wake' ? randomUUID() : join.action.runId;
}

export function shortKey(key: string): string {
  return key.length <= 200 ? key : `${key.slice(0, 199)}…`;
}

export function groupView(row: GroupRow): DebounceGroupView {
  return {
    groupId: row.group_id,
    mappingId: row.mapping_id,
    key: row.group_key,
    kind: groupKind(row.kind),
    status: row.status === 'firing' ? 'firing' : 'open',
    deliveries: Number(row.deliveries),
    createdAt: Number(row.created_at),
    firesAt: Number(row.fire_at),
  };
}

/** A claimed group and how many members it stores. */
export function dueGroup(row: GroupRow, stored: number): DueGroup {
  return {
    groupId: row.group_id,
    mappingId: row.mapping_id,
    kind: groupKind(row.kind),
    keep: row.keep === 'all' ? 'all' : 'last',
    maxChars: Number(row.max_chars),
    createdAt: Number(row.created_at),
    deliveries: Number(row.deliveries),
    stored: Number(stored),
  };
}

export function groupMember(row: { seq: number | string; action: string }): GroupMember {
  return { seq: Number(row.seq), action: JSON.parse(row.action) as AdmittedAction };
}

/** A delivery's stored action and its size, as the group's byte bound counts it. */
export function storedMember(join: DebounceJoin): { json: string; bytes: number } {
  const json = JSON.stringify(join.action);
  return { json, bytes: Buffer.byteLength(json) };
}

/**
 * Whether an open group takes this delivery: keep "all" stores every delivery, so a group at
 * maxDeliveries, or one this delivery would take past maxBytes, is full (the join closes it and
 * opens a new group). Counted on the stored sizes, also for a group an older version made larger.
 */
export function takesMember(join: DebounceJoin, group: { deliveries: number | string; bytes: number | string }, bytes: number): boolean {
  if (join.keep !== 'all') return true;
  return Number(group.deliveries) + 1 <= join.maxDeliveries && Number(group.bytes) + bytes <= join.maxBytes;
}

/** The stored bytes of a group after a join: keep "last" holds only the newest action. */
export function bytesAfterJoin(join: DebounceJoin, group: { bytes: number | string }, bytes: number): number {
  return join.keep === 'last' ? bytes : Number(group.bytes) + bytes;
}

function groupKind(stored: string): GroupKind {
  return stored === 'wake' || stored === 'notify' ? stored : 'agent';
}

/** When a firer must next look (DebounceStore.nextFireAt), read with each status's own index: open groups by fire time, claims by lease. */
export const NEXT_LOOK_SQL = `SELECT (SELECT MIN(fire_at) FROM debounce_groups WHERE status = 'open') AS open_at,
  (SELECT MIN(lease_until) FROM debounce_groups WHERE status = 'firing') AS lease_at`;

export function earliestLook(row: { open_at: number | string | null; lease_at: number | string | null } | undefined): number | undefined {
  const times = [row?.open_at, row?.lease_at].filter((at): at is number | string => at !== null && at !== undefined).map(Number);
  return times.length === 0 ? undefined : Math.min(...times);
}

/** A pending run as both adapters read it: the group's row with its newest member's hook, name and session key. */
export interface PendingRunSqlRow {
  group_id: string;
  mapping_id: string;
  kind: string;
  status: string;
  deliveries: number | string;
  created_at: number | string;
  fire_at: number | string;
  hook: string | null;
  name: string | null;
  session_key: string | null;
}

export function pendingRunRow(row: PendingRunSqlRow): PendingRunRow {
  return {
    groupId: row.group_id,
    mappingId: row.mapping_id,
    kind: row.kind === 'notify' ? 'notify' : 'agent',
    status: row.status === 'firing' ? 'firing' : 'open',
    hook: row.hook ?? '',
    name: row.name ?? '',
    sessionKey: row.session_key ?? '',
    deliveries: Number(row.deliveries),
    createdAt: Number(row.created_at),
    firesAt: Number(row.fire_at),
  };
}

/** One page as the run list pages: `next` is the last row's id when more rows matched than the limit. */
export function pendingRunPage(rows: readonly PendingRunSqlRow[], limit: number): { runs: PendingRunRow[]; next?: string } {
  const runs = rows.slice(0, limit).map(pendingRunRow);
  const last = runs[runs.length - 1];
  return rows.length > limit && last !== undefined ? { runs, next: last.groupId } : { runs };
}
