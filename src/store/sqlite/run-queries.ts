import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
import type { RecordedDelivery, RunCompletion, RunFinish, RunRow, RunStatus, RunView } from '../port-types.js';
import type { FollowUpRun, RunReschedule } from '../handoff-types.js';
import { insertEvent } from './session-queries.js';
import { appendExchange, insertDelivery } from './state-queries.js';
import { notesColumn, toRunView } from '../row-views.js';

/** SQL on the `runs` table: the run queue, its ends, and the views of runs. Synchronous; the adapter wraps them. */

/**
 * The oldest queued runs the runtime executes, at most limit: relay runs wait for their consumers,
 * not for the runtime (the partial index runs_queued_here leaves them out however many wait).
 */
export function listQueuedRuns(db: DatabaseSync, limit: number, now?: number): RunRow[] {
  if (now === undefined) return prepareCached(db, "SELECT * FROM runs WHERE status = 'queued' AND kind <> 'relay' ORDER BY created_at, rowid LIMIT ?").all(limit) as unknown as RunRow[];
  return prepareCached(db, "SELECT * FROM runs WHERE status = 'queued' AND kind <> 'relay' AND (not_before IS NULL OR not_before <= ?) ORDER BY created_at, rowid LIMIT ?").all(now, limit) as unknown as RunRow[];
}

/** queued → running; false when another claimer got there first. */
export function claimRun(db: DatabaseSync, runId: string, at: number): boolean {
  // A run that waited (a forward's retry) waits no more once claimed.
  const result = prepareCached(db, "UPDATE runs SET status = 'running', started_at = ?, attempts = attempts + 1, waiting_for = NULL, not_before = NULL WHERE run_id = ? AND status = 'queued'").run(at, runId);
  return Number(result.changes) === 1;
}

/** The run's end, its transcript exchange, summary event and skipped delivery: the caller holds the transaction. */
export function finishRun(db: DatabaseSync, runId: string, end: RunFinish): void {
  prepareCached(db, 'UPDATE runs SET status = ?, finished_at = ?, reply = ?, summary = ?, error = ?, notes = ? WHERE run_id = ?').run(
    end.status,
    end.at,
    end.reply ?? null,
    end.summary,
    end.error ?? null,
    notesColumn(end.notes),
    runId,
  );
  if (end.exchange !== undefined) appendExchange(db, end.exchange.sessionKey, end.exchange.user, end.exchange.assistant, end.at);
  if (end.event !== undefined) insertEvent(db, end.event);
  if (end.skipped !== undefined) {
    insertDelivery(db, { ...end.skipped, at: end.at, runId, status: 'skipped' });
    setRunDelivery(db, runId, { status: 'skipped', reason: end.skipped.reason });
  }
  if (end.delivery !== undefined) setRunDelivery(db, runId, end.delivery);
  if (end.handoff !== undefined) prepareCached(db, 'UPDATE runs SET handoff = ? WHERE run_id = ?').run(JSON.stringify(end.handoff), runId);
  if (end.followUp !== undefined) insertFollowUp(db, end.followUp, end.at);
}

/** The run queued with another's end (its callback): nothing if a run with its id exists (recovery may decide twice). */
function insertFollowUp(db: DatabaseSync, run: FollowUpRun, at: number): void {
  prepareCached(db, "INSERT OR IGNORE INTO runs (run_id, created_at, status, hook, name, session_key, action, kind) VALUES (?, ?, 'queued', ?, ?, '', ?, ?)").run(
    run.runId,
    at,
    run.hook,
    run.name,
    run.action,
    run.kind,
  );
}

/** A forward or callback run its target could not take now: queued again, held until notBefore. */
export function rescheduleRun(db: DatabaseSync, runId: string, retry: RunReschedule): void {
  prepareCached(db, "UPDATE runs SET status = 'queued', waiting_for = 'retry', not_before = ?, error = ?, handoff = ? WHERE run_id = ? AND status = 'running'").run(
    retry.notBefore,
    retry.error,
    JSON.stringify(retry.handoff),
    runId,
  );
}

/** A run cut by a shutdown: `interrupted` without finished_at, so the next start resumes it. */
export function suspendRun(db: DatabaseSync, runId: string, reason: string): void {
  prepareCached(db, "UPDATE runs SET status = 'interrupted', error = ? WHERE run_id = ?").run(reason, runId);
}

export function requeueRun(db: DatabaseSync, runId: string, reason: string): void {
  prepareCached(db, "UPDATE runs SET status = 'queued', error = ?, started_at = NULL, waiting_for = NULL, not_before = NULL WHERE run_id = ?").run(reason, runId);
}

/** Runs left mid-way: `running` (a crash) or `interrupted` without an end (a shutdown). */
export function listUnfinishedRuns(db: DatabaseSync): RunRow[] {
  return prepareCached(db, "SELECT * FROM runs WHERE status = 'running' OR (status = 'interrupted' AND finished_at IS NULL) ORDER BY created_at, rowid").all() as unknown as RunRow[];
}

export function setRunDelivery(db: DatabaseSync, runId: string, delivery: RecordedDelivery): void {
  prepareCached(db, 'UPDATE runs SET delivery = ? WHERE run_id = ?').run(JSON.stringify(delivery), runId);
}

export function countRunsByStatus(db: DatabaseSync): Record<RunStatus, number> {
  const counts: Record<RunStatus, number> = { queued: 0, running: 0, ok: 0, error: 0, timeout: 0, interrupted: 0 };
  const rows = prepareCached(db, 'SELECT status, COUNT(*) AS n FROM runs GROUP BY status').all() as Array<{ status: RunStatus; n: number }>;
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

/** One status's count, through the status index (cheap however many runs finished). */
export function countRunsWithStatus(db: DatabaseSync, status: RunStatus): number {
  return (prepareCached(db, 'SELECT COUNT(*) AS n FROM runs WHERE status = ?').get(status) as { n: number }).n;
}

/** What GET {hooks.path}/runs/<runId> shows: never the message or the raw reply. */
export function readRunCompletion(db: DatabaseSync, runId: string): RunCompletion | undefined {
  const row = prepareCached(db, 'SELECT status, reply FROM runs WHERE run_id = ?').get(runId) as { status: RunStatus; reply: string | null } | undefined;
  if (row === undefined) return undefined;
  return row.reply === null ? { status: row.status } : { status: row.status, reply: row.reply };
}

export function readRunView(db: DatabaseSync, runId: string): RunView | undefined {
  const row = prepareCached(db, 'SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow | undefined;
  if (row === undefined) return undefined;
  const view = toRunView(row);
  const retry = prepareCached(db, 'SELECT run_id FROM runs WHERE retry_of = ?').get(runId) as { run_id: string } | undefined;
  if (retry !== undefined) view.retriedBy = retry.run_id;
  return view;
}
