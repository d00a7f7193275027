import type { BudgetRule, StateStore } from '../store/port.js';
import { readBudgetsInForce } from '../runtime/gates/budgets-in-force.js';

/** A budget the config file sets otherwise than the running server enforces it. */
export interface BudgetChange {
  /** `service`, or `mapping:<id>`. */
  scope: string;
  window: 'hour' | 'day';
  /** Runs per window enforced now; null: no such budget is in force. */
  inForce: number | null;
  /** Runs per window the file sets; null: the file has none. */
  next: number | null;
  /** What applies the file's: the service's budget is read at start, a mapping's by a reload. */
  appliesAt: 'restart' | 'reload';
}

export interface BudgetsShown {
  /** What runs are counted against: the running server's budgets, else (none runs) the file's, which the next start enforces. */
  rules: BudgetRule[];
  changes: BudgetChange[];
}

/**
 * The budgets `hookgate status` shows. A running server recorded what it enforces
 * (src/runtime/gates/budgets-in-force.ts); the file may hold an edit it has not applied. On SQLite
 * the record counts while the server that wrote it runs (its pid in `<store>.server.json`); a
 * PostgreSQL store has no such file, so the last record an instance wrote counts.
 */
export async function budgetsShown(state: Pick<StateStore, 'get'>, onDisk: readonly BudgetRule[], server: { pid: number } | 'shared' | undefined): Promise<BudgetsShown> {
  const record = await readBudgetsInForce(state);
  const believed = record !== undefined && server !== undefined && (server === 'shared' || server.pid === record.pid);
  if (!believed) return { rules: [...onDisk], changes: [] };
  return { rules: record.rules, changes: budgetChanges(record.rules, onDisk) };
}

const WINDOWS = [
  ['hour', 'runsPerHour'],
  ['day', 'runsPerDay'],
] as const;

function budgetChanges(inForce: readonly BudgetRule[], onDisk: readonly BudgetRule[]): BudgetChange[] {
  const scopes = [...new Set([...inForce, ...onDisk].map((rule) => rule.scope))];
  return scopes.flatMap((scope) => {
    const now = inForce.find((rule) => rule.scope === scope);
    const next = onDisk.find((rule) => rule.scope === scope);
    return WINDOWS.flatMap(([window, field]) => {
      const [a, b] = [now?.[field] ?? null, next?.[field] ?? null];
      return a === b ? [] : [{ scope, window, inForce: a, next: b, appliesAt: scope === 'service' ? ('restart' as const) : ('reload' as const) }];
    });
  });
}

/** `after restart: 100/h`: what the config file's value becomes, and when. */
export function budgetChangeText(change: BudgetChange): string {
  return `after ${change.appliesAt}: ${change.next === null ? 'no budget' : `${change.next}/${change.window === 'hour' ? 'h' : 'day'}`}`;
}
