import type { BudgetConfig, ConcurrencyConfig, ThrottleConfig } from '../../config/limits-schema.js';
import type { BudgetRule } from '../../store/port.js';

/** The run gates one mapping asks for (its config's throttle, concurrency and budget). */
export interface MappingRunLimits {
  /** Whose throttle bucket and concurrency keys: the mapping's id, or its preset's (`preset:github`), shared by the preset's mappings. */
  owner: string;
  /** Its budget's scope: `mapping:<id>`, or the preset's (`preset:github`). */
  budgetScope: string;
  throttle?: ThrottleConfig | undefined;
  concurrency?: ConcurrencyConfig | undefined;
  budget?: BudgetConfig | undefined;
}

/**
 * Each mapping's run limits by mapping id, as the mapping engine in force compiled them
 * (MappingEngine.runLimits); mappings without any are absent. A reload hands the runtime a new one.
 */
export type RunLimitsTable = ReadonlyMap<string, MappingRunLimits>;

export const NO_RUN_LIMITS: RunLimitsTable = new Map();

/** Every budget in force: the service's and each mapping's, as the limit store counts them. */
export function budgetRulesOf(serviceBudget: BudgetConfig | undefined, table: RunLimitsTable): BudgetRule[] {
  const rules: BudgetRule[] = [];
  if (serviceBudget !== undefined) rules.push({ scope: 'service', ...serviceBudget });
  for (const limits of table.values()) {
    // A preset's mappings share one budget: listed once.
    if (limits.budget !== undefined && !rules.some((rule) => rule.scope === limits.budgetScope)) rules.push({ scope: limits.budgetScope, ...limits.budget });
  }
  return rules;
}

/** Whether two tables hold the same limits for the same mappings (a reload that changed none re-decides nothing). */
export function sameRunLimits(a: RunLimitsTable, b: RunLimitsTable): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [id, limits] of a) if (!sameLimits(limits, b.get(id))) return false;
  return true;
}

function sameLimits(a: MappingRunLimits, b: MappingRunLimits | undefined): boolean {
  if (b === undefined || a.owner !== b.owner || a.budgetScope !== b.budgetScope) return false;
  return (['throttle', 'concurrency', 'budget'] as const).every((field) => canonical(a[field]) === canonical(b[field]));
}

/** JSON with sorted keys: the configs are plain objects of numbers and strings. */
function canonical(value: object | undefined): string {
  if (value === undefined) return '';
  return JSON.stringify(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : 1)));
}
