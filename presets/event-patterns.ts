/**
 * Event-type patterns as a mapping's `events` reads them: `a.b` names one type, a bare `a` names
 * `a` and every `a.<action>`, `a.*` the rest of a dotted name, `*` everything. Each pattern is a
 * set of exact names and name prefixes; these helpers reason about those sets.
 */
interface PatternSet {
  exact: string[];
  prefixes: string[];
}

function setOf(pattern: string): PatternSet {
  if (pattern === '*') return { exact: [], prefixes: [''] };
  if (pattern.endsWith('.*')) return { exact: [], prefixes: [pattern.slice(0, -1)] };
  return { exact: [pattern], prefixes: pattern.includes('.') ? [] : [`${pattern}.`] };
}

function matchesName(set: PatternSet, name: string): boolean {
  return set.exact.includes(name) || set.prefixes.some((prefix) => name.startsWith(prefix));
}

/** Every type `inner` matches, `outer` matches too. */
export function covers(outer: string, inner: string): boolean {
  const a = setOf(outer);
  const b = setOf(inner);
  return b.exact.every((name) => matchesName(a, name)) && b.prefixes.every((prefix) => a.prefixes.some((other) => prefix.startsWith(other)));
}

/**
 * The patterns naming what both lists name. Prefix patterns are nested or disjoint, so the
 * narrower of two overlapping patterns is their intersection.
 */
export function intersect(wanted: readonly string[], handled: readonly string[]): string[] {
  const out = new Set<string>();
  for (const want of wanted) {
    for (const handle of handled) {
      if (covers(want, handle)) out.add(handle);
      else if (covers(handle, want)) out.add(want);
    }
  }
  return [...out];
}

/** The patterns of `wanted` that `handled` does not cover whole (some of their types have no group). */
export function uncovered(wanted: readonly string[], handled: readonly string[]): string[] {
  return wanted.filter((want) => !handled.some((handle) => covers(handle, want)));
}

/** Whether an event type is named by a pattern list (as the admission step decides). */
export function named(patterns: readonly string[], event: string): boolean {
  return patterns.some((pattern) => matchesName(setOf(pattern), event));
}

/** A filter condition that holds when the delivery's event is one a pattern names. */
export function eventCondition(patterns: readonly string[]): Record<string, unknown> {
  const any: Array<Record<string, unknown>> = [];
  for (const pattern of patterns) {
    const { exact, prefixes } = setOf(pattern);
    for (const name of exact) any.push({ field: 'event', equals: name });
    for (const prefix of prefixes) any.push({ field: 'event', startsWith: prefix });
  }
  return { any };
}
