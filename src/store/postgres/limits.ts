import type pg from 'pg';
import { budgetWindows, DAY_MS, decideGates, gcra, nextCircuit, probingCircuit, type BudgetWindowState, type GateState } from '../gate-decision.js';
import { RELAY_HELD } from '../relay-types.js';
import type { CircuitRow, GateOutcome, LimitStore, RateVerdict, RunGates, WaitingFor } from '../limit-types.js';
import { query, transaction, type Queryable } from './sql.js';
import { toCircuit, type CircuitSqlRow } from '../row-views.js';
import { postgresRateHits } from './rate-hit.js';

/**
 * The limit store on PostgreSQL, shared by every instance. A bucket's hit locks the bucket's row
 * for its transaction (rate-hit.ts); a gated claim and a circuit update hold one advisory lock for
 * all gates of the schema, so two instances never both take a key's last slot or a budget's last start.
 */

export function createPostgresLimits(pool: pg.Pool, schema: string): LimitStore {
  const gatesLock = `hookgate.gates.${schema}`;
  const lockGates = (client: pg.PoolClient) => client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [gatesLock]);
  return {
    async rateHit(bucket, rule, now, peek = false) {
      if (peek) {
        const verdict = gcra(await readTat(pool, bucket), rule, now);
        return verdict.allowed ? { allowed: true, retryAfterMs: 0 } : verdict;
      }
      const [verdict] = await transaction(pool, (client) => postgresRateHits(client, [{ bucket, rule, now }]));
      return verdict as RateVerdict;
    },
    async claimGated(runId, claim, gates) {
      if (claim.signal?.aborted === true) return { kind: 'taken' };
      return transaction(pool, async (client): Promise<GateOutcome> => {
        await lockGates(client);
        const { rows } = await client.query<{ status: string; forced: number }>('SELECT status, forced FROM runs WHERE run_id = $1 FOR UPDATE', [runId]);
        if (rows[0]?.status !== 'queued') return { kind: 'taken' };
        const decision = decideGates(gates, await readGateState(client, gates, claim.at, rows[0].forced === 1), claim.at);
        const key = gates.concurrency?.key ?? null;
        if (decision.kind === 'waiting') {
          await client.query('UPDATE runs SET waiting_for = $2, not_before = $3, concurrency_key = $4 WHERE run_id = $1', [runId, decision.waitingFor, decision.notBefore, key]);
          return decision;
        }
        await client.query(
          `UPDATE runs SET status = 'running', started_at = $2, attempts = attempts + 1, claimed_by = $3, lease_until = $4, concurrency_key = $5,
                  waiting_for = NULL, not_before = NULL WHERE run_id = $1`,
          [runId, claim.at, claim.owner, claim.leaseUntil, key],
        );
        if (decision.tat !== undefined && gates.throttle !== undefined) await writeTat(client, gates.throttle.bucket, decision.tat);
        await recordStarts(client, runId, gates.budgets, claim.at);
        if (decision.probe && gates.circuit !== undefined) {
          const { provider, rule } = gates.circuit;
          await writeCircuit(client, probingCircuit(await readCircuit(client, provider), provider, rule, claim.at, runId));
        }
        return { kind: 'claimed', probe: decision.probe };
      });
    },
    async wakeWaiting(reason, concurrencyKey) {
      const wake = "UPDATE runs SET not_before = NULL WHERE status = 'queued'";
      if (reason === 'concurrency') await query(pool, `${wake} AND waiting_for = 'concurrency' AND concurrency_key = $1`, [concurrencyKey ?? '']);
      else if (reason === 'provider-circuit') await query(pool, `${wake} AND waiting_for = 'provider-circuit'`);
      else await query(pool, `${wake} AND not_before IS NOT NULL`);
    },
    async nextNotBefore() {
      const { rows } = await query<{ at: number | null }>(pool, "SELECT MIN(not_before) AS at FROM runs WHERE status = 'queued' AND not_before IS NOT NULL");
      return rows[0]?.at ?? undefined;
    },
    recordProviderOutcome: (provider, failed, rule, now) =>
      transaction(pool, async (client) => {
        await lockGates(client);
        const { row, transition } = nextCircuit(await readCircuit(client, provider), provider, failed, rule, now);
        if (row !== undefined) await writeCircuit(client, row);
        return transition;
      }),
    forceStart: (runId) =>
      transaction(pool, async (client) => {
        const { rows } = await client.query<{ status: string; kind: string }>('SELECT status, kind FROM runs WHERE run_id = $1 FOR UPDATE', [runId]);
        if (rows[0] === undefined) return { kind: 'not-found' as const };
        if (rows[0].status !== 'queued') return { kind: 'not-queued' as const, status: rows[0].status };
        if (rows[0].kind === 'relay') return { kind: 'not-queued' as const, status: RELAY_HELD };
        await client.query('UPDATE runs SET forced = 1, not_before = NULL, waiting_for = NULL WHERE run_id = $1', [runId]);
        return { kind: 'forced' as const };
      }),
    async overview(budgets, now) {
      const waiting: Record<WaitingFor, number> = { throttle: 0, concurrency: 0, budget: 0, 'provider-circuit': 0, slot: 0, retry: 0, consumer: 0 };
      const counted = await query<{ reason: WaitingFor; n: number }>(pool, "SELECT COALESCE(waiting_for, CASE WHEN kind = 'relay' THEN 'consumer' ELSE 'slot' END) AS reason, COUNT(*)::int AS n FROM runs WHERE status = 'queued' GROUP BY 1");
      for (const row of counted.rows) waiting[row.reason] = row.n;
      const windows = await readBudgetWindows(pool, budgets, now);
      const circuits = await query<CircuitSqlRow>(pool, 'SELECT * FROM provider_circuits ORDER BY provider');
      const busiest = await query<{ bucket: string; tat: number }>(pool, "SELECT bucket, tat FROM limit_buckets WHERE bucket LIKE 'rate:%' AND tat > $1 ORDER BY tat DESC LIMIT 5", [now]);
      return {
        waiting,
        budgets: windows.map((w) => ({ scope: w.scope, window: w.window, limit: w.limit, used: w.used, remaining: Math.max(0, w.limit - w.used) })),
        circuits: circuits.rows.map(toCircuit),
        busiestRateKeys: busiest.rows.map((row) => ({ bucket: row.bucket, aheadMs: row.tat - now })),
      };
    },
  };
}



async function readTat(db: Queryable, bucket: string): Promise<number | undefined> {
  const { rows } = await db.query<{ tat: number }>('SELECT tat FROM limit_buckets WHERE bucket = $1', [bucket]);
  return rows[0]?.tat;
}

async function writeTat(db: Queryable, bucket: string, tat: number): Promise<void> {
  await db.query('INSERT INTO limit_buckets (bucket, tat) VALUES ($1, $2) ON CONFLICT (bucket) DO UPDATE SET tat = EXCLUDED.tat', [bucket, tat]);
}

async function readCircuit(db: Queryable, provider: string): Promise<CircuitRow | undefined> {
  const { rows } = await db.query<CircuitSqlRow>('SELECT * FROM provider_circuits WHERE provider = $1', [provider]);
  return rows[0] === undefined ? undefined : toCircuit(rows[0]);
}

async function writeCircuit(db: Queryable, row: CircuitRow): Promise<void> {
  await db.query(
    `INSERT INTO provider_circuits (provider, state, failures, until, open_ms, changed_at, probe_run) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (provider) DO UPDATE SET state = EXCLUDED.state, failures = EXCLUDED.failures, until = EXCLUDED.until, open_ms = EXCLUDED.open_ms,
       changed_at = EXCLUDED.changed_at, probe_run = EXCLUDED.probe_run`,
    [row.provider, row.state, row.failures, row.until, row.openMs, row.changedAt, row.probeRun ?? null],
  );
}

/** The probe holds the circuit while its run executes under a live lease: a dead instance's probe is replaced once its lease is past. */
async function probeHeld(db: Queryable, circuit: CircuitRow | undefined, now: number): Promise<boolean> {
  if (circuit?.state !== 'probing' || circuit.probeRun === undefined) return false;
  const { rows } = await db.query("SELECT 1 FROM runs WHERE run_id = $1 AND status = 'running' AND lease_until >= $2", [circuit.probeRun, now]);
  return rows.length > 0;
}

async function readBudgetWindows(db: Queryable, budgets: RunGates['budgets'], now: number): Promise<BudgetWindowState[]> {
  const out: BudgetWindowState[] = [];
  for (const window of budgetWindows(budgets)) {
    const since = now - window.windowMs;
    const { rows } = await db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM run_starts WHERE scope = $1 AND at > $2', [window.scope, since]);
    const used = rows[0]?.n ?? 0;
    let limitthNewest: number | undefined;
    if (used >= window.limit) {
      const nth = await db.query<{ at: number }>('SELECT at FROM run_starts WHERE scope = $1 AND at > $2 ORDER BY at DESC LIMIT 1 OFFSET $3', [window.scope, since, window.limit - 1]);
      limitthNewest = nth.rows[0]?.at;
    }
    out.push({ scope: window.scope, window: window.window, windowMs: window.windowMs, limit: window.limit, used, limitthNewest });
  }
  return out;
}

async function readGateState(db: Queryable, gates: RunGates, now: number, forced: boolean): Promise<GateState> {
  let running = 0;
  if (gates.concurrency !== undefined) {
    const { rows } = await db.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM runs WHERE status = 'running' AND concurrency_key = $1", [gates.concurrency.key]);
    running = rows[0]?.n ?? 0;
  }
  const circuit = gates.circuit === undefined ? undefined : await readCircuit(db, gates.circuit.provider);
  return {
    running,
    tat: gates.throttle === undefined ? undefined : await readTat(db, gates.throttle.bucket),
    budgets: await readBudgetWindows(db, gates.budgets, now),
    circuit,
    probeHeld: await probeHeld(db, circuit, now),
    forced,
  };
}

async function recordStarts(db: Queryable, runId: string, budgets: RunGates['budgets'], now: number): Promise<void> {
  for (const scope of new Set(budgets.map((rule) => rule.scope))) {
    await db.query('INSERT INTO run_starts (scope, at, run_id) VALUES ($1, $2, $3)', [scope, now, runId]);
  }
  await db.query('DELETE FROM run_starts WHERE at <= $1', [now - DAY_MS]);
}
