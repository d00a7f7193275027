/**
 * Request fields the admission rules read (`payload.a.b[0]`, `headers.x-event`, `query.ref`,
 * `event`), parsed once at config load into a root and segments, and read per request by walking
 * own properties only, so no path reaches a prototype.
 */
export type FieldRoot = 'payload' | 'headers' | 'query' | 'event';

export interface FieldPath {
  readonly text: string;
  readonly root: FieldRoot;
  readonly segments: ReadonlyArray<string | number>;
}

/** What a field is read from: the payload as parsed, headers lower-cased, query, the event type. */
export interface FieldSource {
  payload: unknown;
  headers: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string>>;
  event: string | undefined;
}

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const ROOTS: ReadonlySet<string> = new Set(['payload', 'headers', 'query', 'event']);

/** The path, or the reason it is not one (shown at start-up with the mapping and key). */
export function parseFieldPath(text: string): FieldPath | string {
  const segments: Array<string | number> = [];
  for (const part of text.split('.')) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (match === null) return `"${text}" is not a field path (dots and [n] indexes)`;
    const [, name = '', indexes = ''] = match;
    if (name === '' && (segments.length === 0 || indexes === '')) return `"${text}" has an empty segment`;
    if (name !== '') segments.push(name);
    for (const index of indexes.matchAll(/\[(\d+)\]/g)) segments.push(Number(index[1]));
  }
  const [root, ...rest] = segments;
  if (typeof root !== 'string' || !ROOTS.has(root)) return `field "${text}" must start with payload., headers., query. or be event`;
  if (rest.some((segment) => typeof segment === 'string' && FORBIDDEN.has(segment))) return `field "${text}" names a forbidden key`;
  if (root === 'event' && rest.length > 0) return `field "${text}": event has no sub-fields`;
  if ((root === 'headers' || root === 'query') && (rest.length !== 1 || typeof rest[0] !== 'string')) return `field "${text}" must name one ${root === 'headers' ? 'header' : 'query parameter'}`;
  if (root === 'payload' && rest.length === 0) return `field "${text}" must name a payload field`;
  const normalized = root === 'headers' ? rest.map((segment) => String(segment).toLowerCase()) : rest;
  return { text, root: root as FieldRoot, segments: normalized };
}

/** The value at a path, or undefined when any step is missing. */
export function readField(path: FieldPath, source: FieldSource): unknown {
  if (path.root === 'event') return source.event;
  let current: unknown = path.root === 'payload' ? source.payload : path.root === 'headers' ? source.headers : source.query;
  for (const segment of path.segments) {
    if (current === null || typeof current !== 'object') return undefined;
    if (typeof segment === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment];
    } else {
      if (Array.isArray(current) || !Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}
