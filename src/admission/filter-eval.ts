import { readField, type FieldSource } from './field-path.js';
import type { CompiledCondition, CompiledFilter, Primitive } from './filter-compile.js';

/** One condition as `hookgate try` shows it: the value it read and its result. */
export interface ConditionTrace {
  pointer: string;
  field: string;
  op: string;
  expected: unknown;
  actual: unknown;
  result: boolean;
}

/** Whether the delivery passes the filter (short-circuiting, like && and ||). */
export function evaluateFilter(filter: CompiledFilter, source: FieldSource): boolean {
  switch (filter.kind) {
    case 'all':
      return filter.children.every((child) => evaluateFilter(child, source));
    case 'any':
      return filter.children.some((child) => evaluateFilter(child, source));
    case 'not':
      return !evaluateFilter(filter.child, source);
    default:
      return evaluateCondition(filter, readField(filter.field, source));
  }
}

/** Every condition evaluated (no short-circuit), for explanations; the result equals evaluateFilter's. */
export function traceFilter(filter: CompiledFilter, source: FieldSource, traces: ConditionTrace[]): boolean {
  switch (filter.kind) {
    case 'all':
    case 'any': {
      const results = filter.children.map((child) => traceFilter(child, source, traces));
      return filter.kind === 'all' ? results.every(Boolean) : results.some(Boolean);
    }
    case 'not':
      return !traceFilter(filter.child, source, traces);
    default: {
      const actual = readField(filter.field, source);
      const result = evaluateCondition(filter, actual);
      traces.push({ pointer: filter.pointer, field: filter.field.text, op: filter.op, expected: filter.value, actual, result });
      return result;
    }
  }
}

/** Numbers, and strings that spell a decimal number (header and query values are strings). */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

export function evaluateCondition(condition: CompiledCondition, actual: unknown): boolean {
  const { op, value } = condition;
  switch (op) {
    case 'equals':
      return actual === value;
    case 'notEquals':
      return actual !== value;
    case 'in':
      return (value as readonly Primitive[]).includes(actual as Primitive);
    case 'notIn':
      return !(value as readonly Primitive[]).includes(actual as Primitive);
    case 'contains':
      if (typeof actual === 'string') return typeof value === 'string' && actual.includes(value);
      return Array.isArray(actual) && actual.includes(value);
    case 'startsWith':
      return typeof actual === 'string' && actual.startsWith(value as string);
    case 'endsWith':
      return typeof actual === 'string' && actual.endsWith(value as string);
    case 'regex':
      return typeof actual === 'string' && condition.regex !== undefined && condition.regex.test(actual);
    case 'exists':
      return (actual !== undefined) === value;
    default:
      return compareNumbers(op, asNumber(actual), value as number);
  }
}

function compareNumbers(op: 'gt' | 'gte' | 'lt' | 'lte', actual: number | undefined, bound: number): boolean {
  if (actual === undefined) return false;
  if (op === 'gt') return actual > bound;
  if (op === 'gte') return actual >= bound;
  if (op === 'lt') return actual < bound;
  return actual <= bound;
}
