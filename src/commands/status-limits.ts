import type { CircuitRow, LimitOverview } from '../store/port.js';
import { budgetChangeText, type BudgetChange } from './status-budgets.js';

/** `hookgate status`'s lines on run limits: runs waiting by reason, budgets, provider circuits, the busiest rate-limit keys. */
export function formatLimits(limits: LimitOverview, changes: readonly BudgetChange[] = []): string[] {
  const waiting = Object.entries(limits.waiting).filter(([, count]) => count > 0);
  const lines = [`runs waiting: ${waiting.length === 0 ? 'none' : waiting.map(([reason, count]) => `${count} for ${reason}`).join(', ')}`];
  for (const budget of limits.budgets) {
    const change = changes.find((candidate) => candidate.scope === budget.scope && candidate.window === budget.window);
    lines.push(`budget ${budget.scope} per ${budget.window}: ${budget.used} of ${budget.limit} used, ${budget.remaining} left${change === undefined ? '' : `; ${budgetChangeText(change)}`}`);
  }
  for (const change of changes.filter((candidate) => candidate.inForce === null)) lines.push(`budget ${change.scope} per ${change.window}: none in force; ${budgetChangeText(change)}`);
  for (const circuit of limits.circuits) {
    lines.push(`provider ${circuit.provider}: circuit ${circuit.state}${circuitTime(circuit)}, ${circuit.failures} consecutive failure${circuit.failures === 1 ? '' : 's'}`);
  }
  if (limits.busiestRateKeys.length > 0) {
    lines.push('rate-limited keys (mapping:key, booked ahead):');
    for (const key of limits.busiestRateKeys) lines.push(`  ${key.bucket.replace(/^rate:/, '')}  ${Math.ceil(key.aheadMs / 1000)} s`);
  }
  return lines;
}

/** Open: until when; probing: since when, and which run probes (it holds the circuit while it executes). */
function circuitTime(circuit: CircuitRow): string {
  if (circuit.state === 'open') return ` until ${new Date(circuit.until).toISOString()}`;
  if (circuit.state === 'probing') return ` since ${new Date(circuit.changedAt).toISOString()}${circuit.probeRun === undefined ? '' : ` (probe run ${circuit.probeRun})`}`;
  return '';
}
