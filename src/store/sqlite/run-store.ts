import type { DatabaseSync } from 'node:sqlite';
import type { RunStore } from '../port.js';
import type { RunRow } from '../port-types.js';
import { inTransaction } from './connection.js';
import { queueRetry } from './retry-queries.js';
import {
  claimRun,
  countRunsByStatus,
  finishRun,
  listQueuedRuns,
  listUnfinishedRuns,
  readRunCompletion,
  readRunView,
  requeueRun,
  rescheduleRun,
  setRunDelivery,
  suspendRun,
} from './run-queries.js';
import { listRunViews } from './view-queries.js';
import { writeWhenFree } from './write-when-free.js';

/**
 * The run queue on SQLite. One process owns the file, so a claim's lease is simply held by this
 * store object until the run ends or is suspended (`held`); recovery takes over every unfinished
 * run it does not hold, which at start is every one: a run found unfinished at start was left by a
 * process that is gone.
 */
export function createSqliteRunStore(db: DatabaseSync, reads: DatabaseSync, held = new Set<string>()): RunStore {
  const release = (runId: string): void => void held.delete(runId);
  return {
    listQueued: async (limit, now) => listQueuedRuns(db, limit, now),
    async claim(runId, claim) {
      // Checked at every try: a claim still waiting for the write lock when the runtime stops is not made.
      const claimed = await writeWhenFree(() => claim.signal?.aborted !== true && claimRun(db, runId, claim.at));
      if (claimed) held.add(runId);
      return claimed;
    },
    renewLease: async (runId) => held.has(runId),
    async finish(runId, end) {
      await writeWhenFree(() => inTransaction(db, () => finishRun(db, runId, end)));
      release(runId);
    },
    async suspend(runId, reason) {
      await writeWhenFree(() => suspendRun(db, runId, reason));
      release(runId);
    },
    async reschedule(runId, retry) {
      await writeWhenFree(() => rescheduleRun(db, runId, retry));
      release(runId);
    },
    recoverAbandoned: (now, decide) =>
      writeWhenFree(() =>
        inTransaction(db, () => {
          const counts = { requeued: 0, finished: 0 };
          for (const row of listUnfinishedRuns(db).filter((run: RunRow) => !held.has(run.run_id))) {
            const decision = decide(row);
            if (decision.kind === 'requeue') requeueRun(db, row.run_id, decision.reason);
            else finishRun(db, row.run_id, decision.end);
            counts[decision.kind === 'requeue' ? 'requeued' : 'finished'] += 1;
          }
          return counts;
        }),
      ),
    setDelivery: (runId, delivery) => writeWhenFree(() => setRunDelivery(db, runId, delivery)),
    retry: (runId, newRunId, at) => writeWhenFree(() => queueRetry(db, runId, newRunId, at)),
    countByStatus: async () => countRunsByStatus(reads),
    completion: async (runId) => readRunCompletion(reads, runId),
    view: async (runId) => readRunView(reads, runId),
    listViews: async (filter) => listRunViews(reads, filter),
  };
}
