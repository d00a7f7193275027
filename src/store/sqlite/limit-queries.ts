import type { DatabaseSync } from 'node:sqlite';
import { prepareCached } from './connection.js';
import { budgetWindows, DAY_MS, type BudgetWindowState, type GateState } from '../gate-decision.js';
import type { CircuitRow, RunGates, WaitingFor } from '../limit-types.js';
import { toCircuit, type CircuitSqlRow } from '../row-views.js';

/** SQL of the limit store on SQLite (buckets, starts, circuits, waiting runs). Synchronous; the adapter wraps them. */


export function readTat(db: DatabaseSync, bucket: string): number | undefined {
  const row = prepareCached(db, 'SELECT tat FROM limit_buckets WHERE bucket = ?').get(bucket) as { tat: number } | undefined;
  return row?.tat;
}

export function writeTat(db: DatabaseSync, bucket: string, tat: number): void {
  prepareCached(db, 'INSERT INTO limit_buckets (bucket, tat) VALUES (?, ?) ON CONFLICT(bucket) DO UPDATE SET tat = excluded.tat').run(bucket, tat);
}

/** Buckets whose time has passed hold nothing a missing row would not. */
export function pruneBuckets(db: DatabaseSync, now: number): void {
  prepareCached(db, 'DELETE FROM limit_buckets WHERE tat < ?').run(now);
}

export function readCircuit(db: DatabaseSync, provider: string): CircuitRow | undefined {
  const row = prepareCached(db, 'SELECT * FROM provider_circuits WHERE provider = ?').get(provider) as CircuitSqlRow | undefined;
  return row === undefined ? undefined : toCircuit(row);
}

export function writeCircuit(db: DatabaseSync, row: CircuitRow): void {
  prepareCached(
    db,
    `INSERT INTO provider_circuits (provider, state, failures, until, open_ms, changed_at, probe_run) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(provider) DO UPDATE SET state = excluded.state, failures = excluded.failures, until = excluded.until, open_ms = excluded.open_ms,
       changed_at = excluded.changed_at, probe_run = excluded.probe_run`,
  ).run(row.provider, row.state, row.failures, row.until, row.openMs, row.changedAt, row.probeRun ?? null);
}

/** One process owns the file: a probe run found `running` is executing here (recovery re-queued any a dead process left). */
function probeHeld(db: DatabaseSync, circuit: CircuitRow | undefined): boolean {
  if (circuit?.state !== 'probing' || circuit.probeRun === undefined) return false;
  return prepareCached(db, "SELECT 1 FROM runs WHERE run_id = ? AND status = 'running'").get(circuit.probeRun) !== undefined;
}

export function listCircuits(db: DatabaseSync): CircuitRow[] {
  return (prepareCached(db, 'SELECT * FROM provider_circuits ORDER BY provider').all() as unknown as CircuitSqlRow[]).map(toCircuit);
}


/** Starts within each window of the budgets, with the start whose leaving frees a full window. */
export function readBudgetWindows(db: DatabaseSync, budgets: RunGates['budgets'], now: number): BudgetWindowState[] {
  return budgetWindows(budgets).map((window) => {
    const since = now - window.windowMs;
    const used = (prepareCached(db, 'SELECT COUNT(*) AS n FROM run_starts WHERE scope = ? AND at > ?').get(window.scope, since) as { n: number }).n;
    const nth =
      used >= window.limit
        ? (prepareCached(db, 'SELECT at FROM run_starts WHERE scope = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ?').get(window.scope, since, window.limit - 1) as { at: number } | undefined)
        : undefined;
    return { scope: window.scope, window: window.window, windowMs: window.windowMs, limit: window.limit, used, limitthNewest: nth?.at };
  });
}

export function readGateState(db: DatabaseSync, gates: RunGates, now: number, forced: boolean): GateState {
  const running =
    gates.concurrency === undefined
      ? 0
      : (prepareCached(db, "SELECT COUNT(*) AS n FROM runs WHERE status = 'running' AND concurrency_key = ?").get(gates.concurrency.key) as { n: number }).n;
  const circuit = gates.circuit === undefined ? undefined : readCircuit(db, gates.circuit.provider);
  return {
    running,
    tat: gates.throttle === undefined ? undefined : readTat(db, gates.throttle.bucket),
    budgets: readBudgetWindows(db, gates.budgets, now),
    circuit,
    probeHeld: probeHeld(db, circuit),
    forced,
  };
}

export function recordStarts(db: DatabaseSync, runId: string, budgets: RunGates['budgets'], now: number): void {
  const insert = prepareCached(db, 'INSERT INTO run_starts (scope, at, run_id) VALUES (?, ?, ?)');
  for (const scope of new Set(budgets.map((rule) => rule.scope))) insert.run(scope, now, runId);
  prepareCached(db, 'DELETE FROM run_starts WHERE at <= ?').run(now - DAY_MS);
}

export function claimGatedRun(db: DatabaseSync, runId: string, at: number, concurrencyKey: string | null): boolean {
  const result = prepareCached(
    db,
    "UPDATE runs SET status = 'running', started_at = ?, attempts = attempts + 1, concurrency_key = ?, waiting_for = NULL, not_before = NULL WHERE run_id = ? AND status = 'queued'",
  ).run(at, concurrencyKey, runId);
  return Number(result.changes) === 1;
}

export function markWaiting(db: DatabaseSync, runId: string, waitingFor: WaitingFor, notBefore: number, concurrencyKey: string | null): void {
  prepareCached(db, 'UPDATE runs SET waiting_for = ?, not_before = ?, concurrency_key = ? WHERE run_id = ?').run(waitingFor, notBefore, concurrencyKey, runId);
}

export function waitingCounts(db: DatabaseSync): Record<WaitingFor, number> {
  const counts: Record<WaitingFor, number> = { throttle: 0, concurrency: 0, budget: 0, 'provider-circuit': 0, slot: 0, retry: 0, consumer: 0 };
  const rows = prepareCached(db, "SELECT COALESCE(waiting_for, CASE WHEN kind = 'relay' THEN 'consumer' ELSE 'slot' END) AS reason, COUNT(*) AS n FROM runs WHERE status = 'queued' GROUP BY 1").all() as Array<{ reason: WaitingFor; n: number }>;
  for (const row of rows) counts[row.reason] = row.n;
  return counts;
}

export function busiestRateBuckets(db: DatabaseSync, now: number, limit: number): Array<{ bucket: string; aheadMs: number }> {
  const rows = prepareCached(db, "SELECT bucket, tat FROM limit_buckets WHERE bucket LIKE 'rate:%' AND tat > ? ORDER BY tat DESC LIMIT ?").all(now, limit) as Array<{ bucket: string; tat: number }>;
  return rows.map((row) => ({ bucket: row.bucket, aheadMs: row.tat - now }));
}
