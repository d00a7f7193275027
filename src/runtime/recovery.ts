import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from '../log.js';
import { closeAbandonedHeartbeats, insertEvent } from '../store/events-repo.js';
import { finishRun, listUnfinishedRuns, requeueRun, type RunRow } from '../store/runtime-repo.js';
import { inTransaction } from '../store/sqlite.js';
import { parseStoredAction } from './agent-run.js';
import { runSummary } from './summary.js';

/** A run is started at most this many times: one interruption is retried, a second one is final. */
export const MAX_RUN_ATTEMPTS = 2;

/**
 * What a previous process left mid-way, put right before any new work starts: runs cut by a crash
 * (`running`) or a shutdown (`interrupted`, not finished) are re-queued once; a run interrupted a
 * second time ends `interrupted` and posts its summary. Heartbeats left running are closed as
 * failed; their events were never consumed, so the next heartbeat takes them.
 */
export function recoverUnfinished(db: DatabaseSync, now: number, logger: Logger): { requeued: number; abandoned: number } {
  let requeued = 0;
  let abandoned = 0;
  inTransaction(db, () => {
    for (const row of listUnfinishedRuns(db)) {
      if (row.attempts < MAX_RUN_ATTEMPTS) {
        requeueRun(db, row.run_id, `interrupted (attempt ${row.attempts}); re-queued after a restart`);
        requeued += 1;
      } else {
        abandon(db, row, now);
        abandoned += 1;
      }
    }
    closeAbandonedHeartbeats(db, now);
  });
  if (requeued + abandoned > 0) logger.info({ event: 'runtime.recovered', requeued, abandoned }, 'resumed runs left by the previous process');
  return { requeued, abandoned };
}

function abandon(db: DatabaseSync, row: RunRow, now: number): void {
  const reason = `run interrupted ${row.attempts} times (restart or shutdown); not retried again`;
  const summary = runSummary(row.name, 'interrupted', reason);
  const action = parseStoredAction(row);
  finishRun(db, row.run_id, { status: 'interrupted', at: now, summary, error: reason });
  insertEvent(db, {
    at: now,
    text: summary,
    mode: action?.wakeMode ?? 'now',
    hook: row.hook,
    runId: row.run_id,
    ...(action?.origin.mappingId === undefined ? {} : { mappingId: action.origin.mappingId }),
  });
}
