import type { RunView, Store } from '../store/port.js';

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
