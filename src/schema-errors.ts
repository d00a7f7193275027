import type { TLocalizedValidationError } from 'typebox/error';

/** The fields of a typebox validation error that callers read. */
export interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  message: string;
}

/**
 * typebox reports a union of literals (`mode: "now" | "next-heartbeat"`) as one `must be equal to
 * constant` per branch plus `must match a schema in anyOf`, which names no allowed value. This
 * collapses each such union into one error, `must be one of "now", "next-heartbeat"`, and keeps
 * every other error as it is, in order. Used wherever schema errors reach a person (request
 * bodies, the configuration, transform results), so an enum field reads the same everywhere.
 */
export function collapseLiteralUnions(errors: Iterable<TLocalizedValidationError>): SchemaError[] {
  const list = [...errors];
  const choices = new Map<string, string[]>(); // anyOf schemaPath → its allowed values
  for (const error of list) {
    if (error.keyword !== 'anyOf') continue;
    const allowed = literalBranchValues(list, error.schemaPath);
    if (allowed !== undefined) choices.set(error.schemaPath, allowed);
  }
  const out: SchemaError[] = [];
  for (const error of list) {
    const union = [...choices.keys()].find((path) => error.schemaPath.startsWith(`${path}/anyOf/`));
    if (union !== undefined) continue; // a branch of a collapsed union: said by the union itself
    const allowed = error.keyword === 'anyOf' ? choices.get(error.schemaPath) : undefined;
    const message = allowed === undefined ? error.message : `must be one of ${allowed.join(', ')}`;
    out.push({ keyword: allowed === undefined ? error.keyword : 'enum', schemaPath: error.schemaPath, instancePath: error.instancePath, message });
  }
  return out;
}

/** The allowed values when every failed branch of the union at `unionPath` is a literal, else undefined. */
function literalBranchValues(errors: readonly TLocalizedValidationError[], unionPath: string): string[] | undefined {
  const branches = new Map<string, unknown[]>();
  const prefix = `${unionPath}/anyOf/`;
  for (const error of errors) {
    if (!error.schemaPath.startsWith(prefix)) continue;
    const branch = error.schemaPath.slice(prefix.length).split('/')[0] ?? '';
    const values = branches.get(branch) ?? [];
    branches.set(branch, values);
    if (error.keyword === 'const') values.push(error.params.allowedValue);
    if (error.keyword === 'enum') values.push(...error.params.allowedValues);
  }
  if (branches.size === 0 || [...branches.values()].some((values) => values.length === 0)) return undefined;
  return [...new Set([...branches.values()].flat())].map((value) => JSON.stringify(value));
}

/**
 * A union with one object form (a preset's name, or its entry with options) reports an object
 * value's mistakes twice over: `must be string` from the other form, `must match a schema in
 * anyOf` from the union, then the object form's own errors. For an object value only the object
 * form's errors say anything, so the rest is dropped. `schema` and `value` are what was checked.
 */
export function narrowObjectUnions(errors: readonly SchemaError[], schema: unknown, value: unknown): SchemaError[] {
  const narrowed: Array<{ instancePath: string; union: string; objectForm: string }> = [];
  for (const error of errors) {
    if (error.keyword !== 'anyOf' || !isPlainObject(at(value, error.instancePath.split('/').slice(1)))) continue;
    const branches = (at(schema, error.schemaPath.replace(/^#/, '').split('/').slice(1)) as { anyOf?: unknown[] } | undefined)?.anyOf ?? [];
    const objectForms = branches.flatMap((branch, index) => ((branch as { type?: unknown }).type === 'object' ? [index] : []));
    if (objectForms.length === 1) narrowed.push({ instancePath: error.instancePath, union: error.schemaPath, objectForm: `${error.schemaPath}/anyOf/${objectForms[0]}` });
  }
  const saysNothing = (error: SchemaError): boolean =>
    narrowed.some(({ instancePath, union, objectForm }) => {
      const within = error.instancePath === instancePath || error.instancePath.startsWith(`${instancePath}/`);
      const inObjectForm = error.schemaPath === objectForm || error.schemaPath.startsWith(`${objectForm}/`);
      return within && (error.schemaPath === union || error.schemaPath.startsWith(`${union}/`)) && !inObjectForm;
    });
  return errors.filter((error) => !saysNothing(error));
}

function at(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const raw of segments) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function isPlainObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
