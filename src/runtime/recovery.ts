import type { Logger } from '../log.js';
import type { RecoveryDecision, RunRow } from '../store/port.js';
import { summaryEvent } from './agent-run.js';
import { parseStoredAction } from './stored-action.js';
import type { RuntimeStore } from './ports.js';
import { runSummary } from './summary.js';
import { callbackOf } from './callback.js';

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
  // A handoff sent again carries the same id, which the target dedupes on; its own retry limits end it (forward-run.ts).
  const handoff = row.kind === 'forward' || row.kind === 'callback';
  if (handoff || row.attempts < MAX_RUN_ATTEMPTS) return { kind: 'requeue', reason: `interrupted (attempt ${row.attempts}); re-queued after a restart` };
  const reason = `run interrupted ${row.attempts} times (restart or shutdown); not retried again`;
  // A notify never reaches the main session, not even as a summary.
  if (row.kind === 'notify') {
    const followUp = callbackOf(row, parseStoredAction(row, 'notify'), { status: 'interrupted', at: now, error: reason });
    return { kind: 'finish', end: { status: 'interrupted', at: now, summary: `Notify ${row.name} (interrupted): ${reason}`, error: reason, ...(followUp === undefined ? {} : { followUp }) } };
  }
  const summary = runSummary(row.name, 'interrupted', reason);
  const action = parseStoredAction(row, 'agent');
  const followUp = callbackOf(row, action, { status: 'interrupted', at: now, error: reason });
  return { kind: 'finish', end: { status: 'interrupted', at: now, summary, error: reason, event: summaryEvent(row, action, summary, now), ...(followUp === undefined ? {} : { followUp }) } };
}
