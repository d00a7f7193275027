import type { BudgetRule, StateStore } from '../../store/port.js';

/**
 * The budgets a running server enforces, kept in the store's `state` table: the service's
 * (`agents.defaults.budget`, fixed at its start) and each mapping's (those of the mappings in force,
 * swapped by a reload). `hookgate status` runs in another process and reads the config file, which
 * may hold an edit the server has not applied yet: it shows these, and the file's as what comes next.
 */
export interface BudgetsInForce {
  /** The process that wrote them: on SQLite, `status` believes them only while that server runs. */
  pid: number;
  recordedAt: string;
  rules: BudgetRule[];
}

const STATE_KEY = 'limits.budgets_in_force';

export function recordBudgetsInForce(store: StateStore, rules: readonly BudgetRule[], now = Date.now()): Promise<void> {
  const record: BudgetsInForce = { pid: process.pid, recordedAt: new Date(now).toISOString(), rules: [...rules] };
  return store.set(STATE_KEY, JSON.stringify(record));
}

/** The last record a server wrote; undefined when none did (or it cannot be read). */
export async function readBudgetsInForce(store: Pick<StateStore, 'get'>): Promise<BudgetsInForce | undefined> {
  const text = await store.get(STATE_KEY);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as Partial<BudgetsInForce>;
    return typeof record.pid === 'number' && Array.isArray(record.rules) ? { pid: record.pid, recordedAt: String(record.recordedAt ?? ''), rules: record.rules } : undefined;
  } catch {
    return undefined;
  }
}
