import type { RunFilter, RunStatus, RunView } from '../store/port.js';
import type { PendingRunListView } from '../admission/pending-view.js';
import type { ConsolePorts } from './ports.js';

/** What the Runs page's Status filter offers: a debounce group not fired yet is a `pending` run. */
export type RunListStatus = RunStatus | 'pending';
export const RUN_LIST_STATUSES: readonly RunListStatus[] = ['pending', 'queued', 'running', 'ok', 'error', 'timeout', 'interrupted'];

export type RunListFilter = Omit<RunFilter, 'status'> & { status?: RunListStatus };

export interface RunListPage {
  runs: Array<RunView | PendingRunListView>;
  next?: string;
  /** All statuses, first page: more pending runs exist than are shown (the Status filter `pending` pages them). */
  morePending?: true;
}

/**
 * The Runs page. `pending`: the groups that will become runs, paged by their own cursor. No status:
 * the first page starts with the pending runs (the runs to come, newest first), then the runs;
 * later pages (the cursor is a run's) hold runs only. Any other status: runs only.
 */
export async function runList(ports: Pick<ConsolePorts, 'runs' | 'pendingRuns'>, filter: RunListFilter): Promise<RunListPage> {
  const { status, ...rest } = filter;
  const scope = { limit: filter.limit, ...(filter.hook === undefined ? {} : { hook: filter.hook }), ...(filter.sessionKey === undefined ? {} : { sessionKey: filter.sessionKey }) };
  if (status === 'pending') return ports.pendingRuns({ ...scope, ...(filter.before === undefined ? {} : { before: filter.before }) });
  const page = await ports.runs(status === undefined ? rest : { ...rest, status });
  if (status !== undefined || filter.before !== undefined) return page;
  const pending = await ports.pendingRuns(scope);
  return { runs: [...pending.runs, ...page.runs], ...(page.next === undefined ? {} : { next: page.next }), ...(pending.next === undefined ? {} : { morePending: true as const }) };
}
