import { RE2JS } from 're2js';
import { parseFieldPath, type FieldPath } from './field-path.js';

export const OPERATORS = ['equals', 'notEquals', 'in', 'notIn', 'contains', 'startsWith', 'endsWith', 'regex', 'exists', 'gt', 'gte', 'lt', 'lte'] as const;
export type Operator = (typeof OPERATORS)[number];
export type Primitive = string | number | boolean | null;

/** One condition, ready to evaluate: the regex compiled on the linear-time RE2 engine. */
export interface CompiledCondition {
  readonly kind: 'condition';
  /** Where it sits in the mapping (`filter/all/0`): shown by `hookgate try`. */
  readonly pointer: string;
  readonly field: FieldPath;
  readonly op: Operator;
  readonly value: Primitive | readonly Primitive[];
  readonly regex?: RE2JS;
}

export type CompiledFilter =
  | { readonly kind: 'all' | 'any'; readonly pointer: string; readonly children: readonly CompiledFilter[] }
  | { readonly kind: 'not'; readonly pointer: string; readonly child: CompiledFilter }
  | CompiledCondition;

export interface FilterProblem {
  /** Relative to the mapping, e.g. `filter/all/1/regex`. */
  field: string;
  message: string;
}

/** Deeper trees are a config mistake, and the bound keeps evaluation's recursion shallow. */
const MAX_DEPTH = 32;
const MAX_NODES = 500;

/** Checks and compiles a `filter` tree; every problem is reported with its path. */
export function compileFilter(tree: unknown): { filter: CompiledFilter | undefined; problems: FilterProblem[] } {
  const problems: FilterProblem[] = [];
  const state = { nodes: 0 };
  const filter = compileNode(tree, 'filter', 0, problems, state);
  return { filter: problems.length === 0 ? filter : undefined, problems };
}

function compileNode(node: unknown, pointer: string, depth: number, problems: FilterProblem[], state: { nodes: number }): CompiledFilter | undefined {
  const problem = (message: string, at = pointer): undefined => void problems.push({ field: at, message });
  state.nodes += 1;
  if (depth > MAX_DEPTH) return problem(`filter is nested deeper than ${MAX_DEPTH} levels`);
  if (state.nodes > MAX_NODES) return state.nodes === MAX_NODES + 1 ? problem(`filter has more than ${MAX_NODES} nodes`) : undefined;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return problem('a filter node must be an object: {all}, {any}, {not} or a condition {field, <operator>}');
  const keys = Object.keys(node);
  const record = node as Record<string, unknown>;
  if (keys.includes('field')) return compileCondition(record, pointer, problem);
  if (keys.length !== 1) return problem(`a filter node has exactly one of all, any, not, or is a condition with field (got ${keys.join(', ') || 'nothing'})`);
  const [key] = keys as [string];
  const inner = record[key];
  if (key === 'not') {
    const child = compileNode(inner, `${pointer}/not`, depth + 1, problems, state);
    return child === undefined ? undefined : { kind: 'not', pointer, child };
  }
  if (key !== 'all' && key !== 'any') return problem(`unknown filter key "${key}" (all, any, not, or a condition with field)`);
  if (!Array.isArray(inner) || inner.length === 0) return problem(`${key} takes a non-empty array of filter nodes`, `${pointer}/${key}`);
  const children = inner.map((child, index) => compileNode(child, `${pointer}/${key}/${index}`, depth + 1, problems, state));
  if (children.some((child) => child === undefined)) return undefined;
  return { kind: key, pointer, children: children as CompiledFilter[] };
}

function compileCondition(record: Record<string, unknown>, pointer: string, problem: (message: string, at?: string) => undefined): CompiledCondition | undefined {
  const field = typeof record['field'] === 'string' ? parseFieldPath(record['field']) : 'field must be a string';
  if (typeof field === 'string') return problem(field, `${pointer}/field`);
  const ops = Object.keys(record).filter((key) => key !== 'field');
  const unknown = ops.filter((key) => !(OPERATORS as readonly string[]).includes(key));
  if (unknown.length > 0) return problem(`unknown operator ${unknown.map((op) => `"${op}"`).join(', ')} (known: ${OPERATORS.join(', ')})`, `${pointer}/${unknown[0]}`);
  if (ops.length !== 1) return problem(`a condition takes exactly one operator (got ${ops.length === 0 ? 'none' : ops.join(', ')})`);
  const op = ops[0] as Operator;
  const value = record[op];
  const at = `${pointer}/${op}`;
  const reason = operandProblem(op, value);
  if (reason !== undefined) return problem(reason, at);
  if (op !== 'regex') return { kind: 'condition', pointer, field, op, value: value as Primitive | Primitive[] };
  try {
    return { kind: 'condition', pointer, field, op, value: value as string, regex: RE2JS.compile(value as string) };
  } catch (error) {
    return problem(`regex does not compile on RE2 (linear-time; no backreferences or lookaround): ${(error as Error).message}`, at);
  }
}

function isPrimitive(value: unknown): value is Primitive {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function operandProblem(op: Operator, value: unknown): string | undefined {
  switch (op) {
    case 'equals':
    case 'notEquals':
    case 'contains':
      return isPrimitive(value) ? undefined : `${op} takes a string, number, boolean or null`;
    case 'in':
    case 'notIn':
      return Array.isArray(value) && value.every(isPrimitive) ? undefined : `${op} takes an array of strings, numbers, booleans or null`;
    case 'startsWith':
    case 'endsWith':
    case 'regex':
      return typeof value === 'string' ? undefined : `${op} takes a string`;
    case 'exists':
      return typeof value === 'boolean' ? undefined : 'exists takes true or false';
    default:
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `${op} takes a number`;
  }
}
