import { RESERVED_NAMES } from './compile.js';

export interface Matchable {
  readonly path: string | undefined;
  readonly source: string | undefined;
}

export interface MatchIndex<T extends Matchable> {
  /** The first entry, in global order, whose path and source hold for this request. */
  find(name: string, source: string | undefined): T | undefined;
  /** Whether some entry could match this name (its path, or a path-less one) given the right `source`. */
  serves(name: string): boolean;
  /** Every entry that may serve this name, whatever the payload's source. */
  candidates(name: string): readonly T[];
}

/**
 * Precomputed at creation so a request looks at the entries of its own path plus the path-less
 * ones, not at every mapping: each path maps to its entries merged with the path-less entries,
 * in the global order.
 */
export function createMatchIndex<T extends Matchable>(entries: readonly T[]): MatchIndex<T> {
  const pathless: T[] = [];
  const byPath = new Map<string, T[]>();
  for (const entry of entries) {
    if (entry.path !== undefined && !byPath.has(entry.path)) byPath.set(entry.path, []);
  }
  // One pass in global order keeps every list ordered; path-less entries join every list.
  for (const entry of entries) {
    if (entry.path === undefined) {
      pathless.push(entry);
      for (const list of byPath.values()) list.push(entry);
    } else {
      byPath.get(entry.path)?.push(entry);
    }
  }
  const candidates = (name: string): readonly T[] => (name === '' || RESERVED_NAMES.has(name) ? [] : (byPath.get(name) ?? pathless));
  return {
    find(name, source) {
      return candidates(name).find((entry) => sourceHolds(entry, source));
    },
    serves: (name) => candidates(name).length > 0,
    candidates,
  };
}

export function sourceHolds(entry: Matchable, source: string | undefined): boolean {
  return entry.source === undefined || entry.source === source;
}

/** Why an entry does not match, or undefined when it does: the explanation `hookgate try` prints. */
export function mismatchReason(entry: Matchable, name: string, source: string | undefined): string | undefined {
  if (name === '' || RESERVED_NAMES.has(name)) return `"${name}" is a built-in endpoint, never mapped`;
  if (entry.path !== undefined && entry.path !== name) return `match.path "${entry.path}" ≠ "${name}"`;
  if (!sourceHolds(entry, source)) {
    return source === undefined ? `match.source "${entry.source}" but the payload has no string "source"` : `match.source "${entry.source}" ≠ payload source "${source}"`;
  }
  return undefined;
}
