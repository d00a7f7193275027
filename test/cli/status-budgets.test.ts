import { describe, expect, it } from 'vitest';
import { budgetsShown } from '../../src/commands/status-budgets.js';
import { formatLimits } from '../../src/commands/status-limits.js';
import { recordBudgetsInForce } from '../../src/runtime/gates/budgets-in-force.js';
import type { BudgetRule, LimitOverview } from '../../src/store/port.js';

/** The store's state table as a map: what the server records and `status` reads. */
function stateTable() {
  const rows = new Map<string, string>();
  return {
    get: async (key: string) => rows.get(key),
    set: async (key: string, value: string) => void rows.set(key, value),
    claim: async (key: string, value: string) => rows.get(key) ?? (rows.set(key, value), value),
  };
}

const inForce: BudgetRule[] = [
  { scope: 'service', runsPerHour: 6 },
  { scope: 'mapping:gh', runsPerDay: 20 },
];
const onDisk: BudgetRule[] = [
  { scope: 'service', runsPerHour: 100 },
  { scope: 'mapping:gh', runsPerDay: 20 },
  { scope: 'mapping:new', runsPerHour: 3 },
];

describe('the budgets hookgate status shows', () => {
  it('are the running server\'s, with what the file changes and when it applies', async () => {
    const state = stateTable();
    await recordBudgetsInForce(state, inForce);
    const shown = await budgetsShown(state, onDisk, { pid: process.pid });
    expect(shown.rules).toEqual(inForce);
    expect(shown.changes).toEqual([
      { scope: 'service', window: 'hour', inForce: 6, next: 100, appliesAt: 'restart' },
      { scope: 'mapping:new', window: 'hour', inForce: null, next: 3, appliesAt: 'reload' },
    ]);
    const overview: LimitOverview = {
      waiting: { slot: 0, concurrency: 0, throttle: 0, budget: 2, 'provider-circuit': 0, retry: 0, consumer: 0 },
      budgets: [
        { scope: 'service', window: 'hour', limit: 6, used: 6, remaining: 0 },
        { scope: 'mapping:gh', window: 'day', limit: 20, used: 6, remaining: 14 },
      ],
      circuits: [],
      busiestRateKeys: [],
    };
    expect(formatLimits(overview, shown.changes).filter((line) => line.startsWith('budget'))).toEqual([
      'budget service per hour: 6 of 6 used, 0 left; after restart: 100/h',
      'budget mapping:gh per day: 6 of 20 used, 14 left',
      'budget mapping:new per hour: none in force; after reload: 3/h',
    ]);
  });

  it('are the file\'s when the server that recorded them is not the one running (or none runs), the last record on a shared store', async () => {
    const state = stateTable();
    await recordBudgetsInForce(state, inForce);
    expect(await budgetsShown(state, onDisk, { pid: process.pid + 1 })).toEqual({ rules: onDisk, changes: [] });
    expect(await budgetsShown(state, onDisk, undefined)).toEqual({ rules: onDisk, changes: [] });
    expect((await budgetsShown(state, onDisk, 'shared')).rules).toEqual(inForce);
    expect(await budgetsShown(stateTable(), onDisk, { pid: process.pid })).toEqual({ rules: onDisk, changes: [] });
  });
});
