import type { DatabaseSync } from 'node:sqlite';
import { prepareCached, inTransaction } from './connection.js';
import { decideGates, gcra, nextCircuit, probingCircuit } from '../gate-decision.js';
import type { GateOutcome, LimitStore } from '../limit-types.js';
import { RELAY_HELD } from '../relay-types.js';
import {
  busiestRateBuckets,
  claimGatedRun,
  listCircuits,
  markWaiting,
  readBudgetWindows,
  readCircuit,
  readGateState,
  readTat,
  recordStarts,
  waitingCounts,
  writeCircuit,
  writeTat,
} from './limit-queries.js';
import { writeWhenFree } from './write-when-free.js';
import { createTransactionBuckets } from './transaction-buckets.js';

const WAKE = "UPDATE runs SET not_before = NULL WHERE status = 'queued'";

/**
 * The limit store on SQLite. Each decision reads and writes inside one BEGIN IMMEDIATE
 * transaction, which SQLite serialises across every connection to the file: two stores on one
 * file (a service and a command, or a restart) never both take a key's last slot. `held` is the
 * run store's set of claims this object holds (see run-store.ts): a gated claim is one of them.
 */
export function createSqliteLimitStore(db: DatabaseSync, reads: DatabaseSync, held: Set<string>): LimitStore {
  const rateHits = { hits: 0 };
  return {
    async rateHit(bucket, rule, now, peek = false) {
      if (peek) {
        const verdict = gcra(readTat(reads, bucket), rule, now);
        return verdict.allowed ? { allowed: true, retryAfterMs: 0 } : verdict;
      }
      // Alert conditions only (mappings' rate limits are counted on the writer thread): rare, one transaction each.
      return writeWhenFree(() =>
        inTransaction(db, () => {
          const buckets = createTransactionBuckets(db, rateHits);
          const verdict = buckets.hit({ bucket, rule, now });
          buckets.flush();
          return verdict;
        }),
      );
    },
    async claimGated(runId, claim, gates) {
      const outcome = await writeWhenFree(() => {
        if (claim.signal?.aborted === true) return { kind: 'taken' } as GateOutcome;
        return inTransaction(db, (): GateOutcome => {
          const run = prepareCached(db, 'SELECT status, forced FROM runs WHERE run_id = ?').get(runId) as { status: string; forced: number } | undefined;
          if (run?.status !== 'queued') return { kind: 'taken' };
          const decision = decideGates(gates, readGateState(db, gates, claim.at, run.forced === 1), claim.at);
          const key = gates.concurrency?.key ?? null;
          if (decision.kind === 'waiting') {
            markWaiting(db, runId, decision.waitingFor, decision.notBefore, key);
            return decision;
          }
          if (!claimGatedRun(db, runId, claim.at, key)) return { kind: 'taken' };
          if (decision.tat !== undefined && gates.throttle !== undefined) writeTat(db, gates.throttle.bucket, decision.tat);
          recordStarts(db, runId, gates.budgets, claim.at);
          if (decision.probe && gates.circuit !== undefined) {
            const { provider, rule } = gates.circuit;
            writeCircuit(db, probingCircuit(readCircuit(db, provider), provider, rule, claim.at, runId));
          }
          return { kind: 'claimed', probe: decision.probe };
        });
      });
      if (outcome.kind === 'claimed') held.add(runId);
      return outcome;
    },
    async wakeWaiting(reason, concurrencyKey) {
      await writeWhenFree(() => {
        if (reason === 'concurrency') prepareCached(db, `${WAKE} AND waiting_for = 'concurrency' AND concurrency_key = ?`).run(concurrencyKey ?? '');
        else if (reason === 'provider-circuit') prepareCached(db, `${WAKE} AND waiting_for = 'provider-circuit'`).run();
        else prepareCached(db, `${WAKE} AND not_before IS NOT NULL`).run();
      });
    },
    async nextNotBefore() {
      const row = prepareCached(reads, "SELECT MIN(not_before) AS at FROM runs WHERE status = 'queued' AND not_before IS NOT NULL").get() as { at: number | null };
      return row.at ?? undefined;
    },
    recordProviderOutcome: (provider, failed, rule, now) =>
      writeWhenFree(() =>
        inTransaction(db, () => {
          const { row, transition } = nextCircuit(readCircuit(db, provider), provider, failed, rule, now);
          if (row !== undefined) writeCircuit(db, row);
          return transition;
        }),
      ),
    forceStart: (runId) =>
      writeWhenFree(() =>
        inTransaction(db, () => {
          const run = prepareCached(db, 'SELECT status, kind FROM runs WHERE run_id = ?').get(runId) as { status: string; kind: string } | undefined;
          if (run === undefined) return { kind: 'not-found' };
          if (run.status !== 'queued') return { kind: 'not-queued', status: run.status };
          if (run.kind === 'relay') return { kind: 'not-queued', status: RELAY_HELD };
          prepareCached(db, 'UPDATE runs SET forced = 1, not_before = NULL, waiting_for = NULL WHERE run_id = ?').run(runId);
          return { kind: 'forced' };
        }),
      ),
    async overview(budgets, now) {
      return {
        waiting: waitingCounts(reads),
        budgets: readBudgetWindows(reads, budgets, now).map((window) => ({
          scope: window.scope,
          window: window.window,
          limit: window.limit,
          used: window.used,
          remaining: Math.max(0, window.limit - window.used),
        })),
        circuits: listCircuits(reads),
        busiestRateKeys: busiestRateBuckets(reads, now, 5),
      };
    },
  };
}
