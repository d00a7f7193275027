import type { DatabaseSync } from 'node:sqlite';
import { prepareCached, inTransaction } from './connection.js';
import { RETRYABLE_STATUSES, type RetryOutcome, type RunRow } from '../port-types.js';

/**
 * Queues a manual retry of a finished run as a new run that links to it (`retry_of`): the same
 * stored action (already sealed: its message keeps the envelope it was admitted with), a new run
 * id, attempts from zero. One transaction: read, decide, insert; the unique index on retry_of
 * turns a racing second retry into a failed insert instead of a second run.
 */
export function queueRetry(db: DatabaseSync, runId: string, newRunId: string, at: number): RetryOutcome {
  return inTransaction(db, () => {
    const row = prepareCached(db, 'SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow | undefined;
    if (row === undefined) return { kind: 'not-found' };
    const previous = prepareCached(db, 'SELECT run_id FROM runs WHERE retry_of = ?').get(runId) as { run_id: string } | undefined;
    if (previous !== undefined) return { kind: 'existing', runId: previous.run_id };
    if (!RETRYABLE_STATUSES.has(row.status)) return { kind: 'not-retryable', status: row.status };
    prepareCached(
      db,
      "INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, retry_of, kind, relay_target) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)",
    ).run(newRunId, at, row.hook, row.name, row.session_key, withRunId(row.action, newRunId), runId, row.kind ?? 'agent', row.relay_target ?? null);
    return { kind: 'queued', runId: newRunId };
  });
}

/** The stored action JSON with the new run's id (the action carries its own runId). */
function withRunId(actionJson: string, runId: string): string {
  const action = JSON.parse(actionJson) as Record<string, unknown>;
  return JSON.stringify({ ...action, runId });
}
