import type { Logger } from '../log.js';
import type { RecoveryDecision, RunRow } from '../store/port.js';
import { summaryEvent } from './agent-run.js';
import { parseStoredAction } from './stored-action.js';
import type { RuntimeStore } from './ports.js';
import { runSummary } from './summary.js';

/** A run is started at most this many times: one interruption is retried, a second one is final. */
export const MAX_RUN_ATTEMPTS = 2;

/**
 * What a previous process left mid-way, put right before any new work starts: runs cut by a crash
 * (`running`) or a shutdown (`interrupted`, not finished) are re-queued once; a run interrupted a
 * second time ends `interrupted` and posts its summary. Heartbeats left running are closed as
 * failed; their events were never consumed, so the next heartbeat takes them.
 */
export async function recoverUnfinished(store: RuntimeStore, now: number, logger: Logger): Promise<{ requeued: number; abandoned: number }> {
  const { requeued, finished: abandoned } = await store.runs.recoverAbandoned(now, (row) => decide(row, now));
  await store.session.closeAbandonedHeartbeats(now);
  if (requeued + abandoned > 0) logger.info({ event: 'runtime.recovered', requeued, abandoned }, 'resumed runs left by the previous process');
  return { requeued, abandoned };
}

function decide(row: RunRow, now: number): RecoveryDecision {
  if (row.attempts < MAX_RUN_ATTEMPTS) return { kind: 'requeue', reason: `interrupted (attempt ${row.attempts}); re-queued after a restart` };
  const reason = `run interrupted ${row.attempts} times (restart or shutdown); not retried again`;
  // A notify never reaches the main session, not even as a summary.
  if (row.kind === 'notify') return { kind: 'finish', end: { status: 'interrupted', at: now, summary: `Notify ${row.name} (interrupted): ${reason}`, error: reason } };
  const summary = runSummary(row.name, 'interrupted', reason);
  const action = parseStoredAction(row, 'agent');
  return { kind: 'finish', end: { status: 'interrupted', at: now, summary, error: reason, event: summaryEvent(row, action, summary, now) } };
}
