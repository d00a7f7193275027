import { HookError } from '../errors.js';
import { isForbiddenKey } from './context.js';

/** A `required` entry split into its steps: `order.items[0].sku` → ["order", "items", 0, "sku"]. */
export type FieldPath = { readonly text: string; readonly steps: ReadonlyArray<string | number> };

const STEP = /([^.[\]]+)|\[(\d+)\]/g;

/** Parses a mapping's `required` list; a path that can never resolve is a load problem. */
export function compileRequired(required: readonly string[] | undefined, problem: (message: string) => void): FieldPath[] {
  const paths: FieldPath[] = [];
  for (const text of required ?? []) {
    const steps = [...text.matchAll(STEP)].map((match) => (match[2] === undefined ? (match[1] as string) : Number(match[2])));
    if (steps.length === 0 || steps.some((step) => typeof step === 'string' && isForbiddenKey(step))) problem(`required "${text}" is not a field path (e.g. "order.id")`);
    else paths.push({ text, steps });
  }
  return paths;
}

/** 400 FIELD_MISSING naming the first required field the payload lacks (absent, null or an empty string). */
export function checkRequired(paths: readonly FieldPath[], payload: unknown, mappingId: string): void {
  for (const path of paths) {
    let value: unknown = payload;
    for (const step of path.steps) {
      value = value !== null && typeof value === 'object' && Object.hasOwn(value, step) ? (value as Record<string | number, unknown>)[step] : undefined;
    }
    if (value === undefined || value === null || value === '') {
      throw new HookError('FIELD_MISSING', `field "${path.text}" is missing (mapping "${mappingId}" requires it)`);
    }
  }
}
