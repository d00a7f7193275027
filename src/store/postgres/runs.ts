import type pg from 'pg';
import type { RecordedDelivery, RetryOutcome, RunClaim, RunFinish, RunRow, RunStatus, RunStore } from '../port.js';
import { RETRYABLE_STATUSES } from '../port.js';
import { query, RUN_COLUMNS, transaction } from './sql.js';
import { appendExchange, insertDelivery, insertEvent } from './session-writes.js';
import { notesColumn, toRunView } from '../row-views.js';
import { listRunViews } from './views.js';

/**
 * The shared run queue. A run is executed by the instance that claimed it while its lease lasts
 * (`claimed_by`, `lease_until`, renewed by the runtime); recovery on any instance takes over the
 * runs whose lease ran out (their instance died) and the suspended ones.
 */
export function createPostgresRuns(pool: pg.Pool): RunStore {
  return {
    async listQueued(limit, now) {
      const due = now === undefined ? '' : 'AND (not_before IS NULL OR not_before <= $2)';
      // Relay runs wait for their consumers, not for the runtime (index runs_queued_here).
      const { rows } = await query<RunRow>(pool, `SELECT ${RUN_COLUMNS} FROM runs WHERE status = 'queued' AND kind <> 'relay' ${due} ORDER BY created_at, seq LIMIT $1`, now === undefined ? [limit] : [limit, now]);
      return rows;
    },
    async claim(runId, claim: RunClaim) {
      if (claim.signal?.aborted === true) return false;
      // SKIP LOCKED: a run another instance is claiming right now is simply not ours; nobody waits.
      const { rowCount } = await query(
        pool,
        `UPDATE runs SET status = 'running', started_at = $2, attempts = attempts + 1, claimed_by = $3, lease_until = $4, waiting_for = NULL, not_before = NULL
          WHERE run_id = (SELECT run_id FROM runs WHERE run_id = $1 AND status = 'queued' FOR UPDATE SKIP LOCKED)`,
        [runId, claim.at, claim.owner, claim.leaseUntil],
      );
      return rowCount === 1;
    },
    async renewLease(runId, owner, leaseUntil) {
      const { rowCount } = await query(pool, "UPDATE runs SET lease_until = $3 WHERE run_id = $1 AND claimed_by = $2 AND status = 'running'", [
        runId,
        owner,
        leaseUntil,
      ]);
      return rowCount === 1;
    },
    finish: (runId, end) => transaction(pool, (client) => finishRun(client, runId, end)),
    async suspend(runId, reason) {
      await query(pool, "UPDATE runs SET status = 'interrupted', error = $2, claimed_by = NULL, lease_until = NULL WHERE run_id = $1", [runId, reason]);
    },
    async reschedule(runId, retry) {
      await query(
        pool,
        "UPDATE runs SET status = 'queued', waiting_for = 'retry', not_before = $2, error = $3, handoff = $4, claimed_by = NULL, lease_until = NULL WHERE run_id = $1 AND status = 'running'",
        [runId, retry.notBefore, retry.error, JSON.stringify(retry.handoff)],
      );
    },
    recoverAbandoned: (now, decide) =>
      transaction(pool, async (client) => {
        // Rows locked by another instance's recovery are skipped: each run is taken over once.
        const { rows } = await client.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM runs
            WHERE (status = 'running' AND (lease_until IS NULL OR lease_until < $1)) OR (status = 'interrupted' AND finished_at IS NULL)
            ORDER BY created_at, seq FOR UPDATE SKIP LOCKED`,
          [now],
        );
        const counts = { requeued: 0, finished: 0 };
        for (const row of rows) {
          const decision = decide(row);
          if (decision.kind === 'finish') {
            await finishRun(client, row.run_id, decision.end);
            counts.finished += 1;
          } else {
            await client.query(
              "UPDATE runs SET status = 'queued', started_at = NULL, error = $2, claimed_by = NULL, lease_until = NULL, waiting_for = NULL, not_before = NULL WHERE run_id = $1",
              [row.run_id, decision.reason],
            );
            counts.requeued += 1;
          }
        }
        return counts;
      }),
    async setDelivery(runId, delivery: RecordedDelivery) {
      await query(pool, 'UPDATE runs SET delivery = $2 WHERE run_id = $1', [runId, JSON.stringify(delivery)]);
    },
    retry: (runId, newRunId, at) => transaction(pool, (client) => queueRetry(client, runId, newRunId, at)),
    async countByStatus() {
      const counts: Record<RunStatus, number> = { queued: 0, running: 0, ok: 0, error: 0, timeout: 0, interrupted: 0 };
      const { rows } = await query<{ status: RunStatus; n: number }>(pool, 'SELECT status, COUNT(*)::int AS n FROM runs GROUP BY status');
      for (const row of rows) counts[row.status] = row.n;
      return counts;
    },
    async completion(runId) {
      const { rows } = await query<{ status: RunStatus; reply: string | null }>(pool, 'SELECT status, reply FROM runs WHERE run_id = $1', [runId]);
      const row = rows[0];
      if (row === undefined) return undefined;
      return row.reply === null ? { status: row.status } : { status: row.status, reply: row.reply };
    },
    async view(runId) {
      const { rows } = await query<RunRow & { retried_by: string | null }>(
        pool,
        `SELECT ${RUN_COLUMNS}, (SELECT r.run_id FROM runs r WHERE r.retry_of = runs.run_id) AS retried_by FROM runs WHERE run_id = $1`,
        [runId],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const view = toRunView(row);
      if (row.retried_by !== null) view.retriedBy = row.retried_by;
      return view;
    },
    listViews: (filter) => listRunViews(pool, filter),
  };
}

/** The end of a run and what goes with it (see RunFinish), inside the caller's transaction. */
export async function finishRun(client: pg.PoolClient, runId: string, end: RunFinish): Promise<void> {
  await client.query(
    'UPDATE runs SET status = $2, finished_at = $3, reply = $4, summary = $5, error = $6, notes = $7, claimed_by = NULL, lease_until = NULL WHERE run_id = $1',
    [runId, end.status, end.at, end.reply ?? null, end.summary, end.error ?? null, notesColumn(end.notes)],
  );
  if (end.exchange !== undefined) await appendExchange(client, end.exchange, end.at);
  if (end.event !== undefined) await insertEvent(client, end.event);
  if (end.skipped !== undefined) {
    const { reason, ...target } = end.skipped;
    await insertDelivery(client, { ...target, status: 'skipped', reason, at: end.at, runId });
    await client.query('UPDATE runs SET delivery = $2 WHERE run_id = $1', [runId, JSON.stringify({ status: 'skipped', reason })]);
  }
  if (end.delivery !== undefined) await client.query('UPDATE runs SET delivery = $2 WHERE run_id = $1', [runId, JSON.stringify(end.delivery)]);
  if (end.handoff !== undefined) await client.query('UPDATE runs SET handoff = $2 WHERE run_id = $1', [runId, JSON.stringify(end.handoff)]);
  const next = end.followUp;
  if (next !== undefined) {
    // Nothing if a run with its id exists (recovery may decide twice).
    await client.query(
      "INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, kind) VALUES ($1, $2, 'queued', $3, $4, '', $5, $6) ON CONFLICT (run_id) DO NOTHING",
      [next.runId, end.at, next.hook, next.name, next.action, next.kind],
    );
  }
}

/** One retry per run, ever: the original is locked while deciding, and retry_of is unique. */
async function queueRetry(client: pg.PoolClient, runId: string, newRunId: string, at: number): Promise<RetryOutcome> {
  const { rows } = await client.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = $1 FOR UPDATE`, [runId]);
  const row = rows[0];
  if (row === undefined) return { kind: 'not-found' };
  const previous = await client.query<{ run_id: string }>('SELECT run_id FROM runs WHERE retry_of = $1', [runId]);
  if (previous.rows[0] !== undefined) return { kind: 'existing', runId: previous.rows[0].run_id };
  if (!RETRYABLE_STATUSES.has(row.status)) return { kind: 'not-retryable', status: row.status };
  const action = { ...(JSON.parse(row.action) as Record<string, unknown>), runId: newRunId };
  await client.query(
    "INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, retry_of, kind, relay_target) VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, $9)",
    [newRunId, at, row.hook, row.name, row.session_key, JSON.stringify(action), runId, row.kind ?? 'agent', row.relay_target ?? null],
  );
  return { kind: 'queued', runId: newRunId };
}
