import { findScheme } from '../auth/signatures/index.js';
import { parseFieldPath, readField, type FieldPath } from './field-path.js';

/** Reads a delivery's event type from its headers (lower-cased) and payload. */
export type EventTypeReader = (headers: Readonly<Record<string, string>>, payload: unknown) => string | undefined;

/**
 * The event type reader a signature scheme offers: each scheme file in src/auth/signatures/ says
 * where its sender puts the type (`eventType`); undefined for an unknown scheme or one without.
 */
export function eventTypeReaderFor(scheme: string | undefined): EventTypeReader | undefined {
  const read = scheme === undefined ? undefined : findScheme(scheme)?.eventType;
  if (read === undefined) return undefined;
  return (headers, payload) => (payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? read(headers, payload as Record<string, unknown>) : undefined);
}

/** `eventField` (`payload.type`, `headers.x-event`) as a reader; a string reason when it is not a usable path. */
export function eventFieldReader(field: string): EventTypeReader | string {
  const path = parseFieldPath(field);
  if (typeof path === 'string') return path;
  if (path.root !== 'payload' && path.root !== 'headers') return `eventField "${field}" must be payload.<path> or headers.<name>`;
  return fieldReader(path);
}

function fieldReader(path: FieldPath): EventTypeReader {
  return (headers, payload) => {
    const value = readField(path, { payload, headers, query: {}, event: undefined });
    return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
  };
}

/**
 * `events` compiled: exact names, and prefixes of `name.*` patterns. `issues` (no dot) also
 * matches every `issues.<action>`, so a GitHub event matches with or without its action.
 */
export function compileEventMatcher(patterns: readonly string[]): (event: string | undefined) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const pattern of patterns) {
    if (pattern === '*') return (event) => event !== undefined;
    if (pattern.endsWith('.*')) prefixes.push(pattern.slice(0, -1));
    else {
      exact.add(pattern);
      if (!pattern.includes('.')) prefixes.push(`${pattern}.`);
    }
  }
  return (event) => event !== undefined && (exact.has(event) || prefixes.some((prefix) => event.startsWith(prefix)));
}
