import type { RunView, Store } from '../store/port.js';
import type { PendingRunRow } from '../store/debounce-port.js';

/** What GET {hooks.path}/runs/<runId> shows for a debounce group that has not fired yet. */
export interface PendingRunView {
  runId: string;
  status: 'pending';
  mappingId: string;
  /** When the group fires (ISO time); it becomes a queued run then. */
  firesAt: string;
  /** Deliveries merged into it so far. */
  deliveries: number;
  createdAt: string;
}

/** A pending run as a run list shows it: the single view, and what the run will be called (its newest delivery's hook, name and session). */
export interface PendingRunListView extends PendingRunView {
  hook: string;
  name: string;
  /** Empty for a notify. */
  sessionKey: string;
  /** Set on a notify (text to a channel, no model); absent on agent runs, as in RunView. */
  kind?: 'notify';
  /** Set while a firer turns it into its run. */
  firing?: true;
}

export function pendingListView(row: PendingRunRow): PendingRunListView {
  return {
    runId: row.groupId,
    status: 'pending',
    mappingId: row.mappingId,
    hook: row.hook,
    name: row.name,
    sessionKey: row.sessionKey,
    deliveries: row.deliveries,
    firesAt: new Date(row.firesAt).toISOString(),
    createdAt: new Date(row.createdAt).toISOString(),
    ...(row.kind === 'notify' ? { kind: 'notify' as const } : {}),
    ...(row.status === 'firing' ? { firing: true as const } : {}),
  };
}

/**
 * The run, or the pending group that will become it. The group is read first: it is removed only
 * after its run was committed, so one of the two is always found.
 */
export async function runOrPendingView(store: Pick<Store, 'runs' | 'debounce'>, runId: string): Promise<PendingRunView | RunView | undefined> {
  const group = await store.debounce.view(runId);
  if (group !== undefined && group.kind !== 'wake') {
    const pending: PendingRunView = {
      runId,
      status: 'pending',
      mappingId: group.mappingId,
      firesAt: new Date(group.firesAt).toISOString(),
      deliveries: group.deliveries,
      createdAt: new Date(group.createdAt).toISOString(),
    };
    return pending;
  }
  return store.runs.view(runId);
}
