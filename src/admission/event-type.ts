import { parseFieldPath, readField, type FieldPath } from './field-path.js';

/** Reads a delivery's event type from its headers (lower-cased) and payload. */
export type EventTypeReader = (headers: Readonly<Record<string, string>>, payload: unknown) => string | undefined;

function stringAt(value: unknown, key: string): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
  const found = (value as Record<string, unknown>)[key];
  return typeof found === 'string' && found !== '' ? found : undefined;
}

function objectAt(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
  return (value as Record<string, unknown>)[key];
}

const payloadType: EventTypeReader = (_headers, payload) => stringAt(payload, 'type');

/**
 * THE table of where each signature scheme's sender puts the event type. A scheme added to
 * src/auth/signatures/ adds its line here (or none: its mappings then name `eventField`).
 */
export const EVENT_TYPE_BY_SCHEME: Readonly<Record<string, EventTypeReader>> = {
  // `issues` + `.opened`: the payload's action refines the header's event.
  github: (headers, payload) => {
    const event = headers['x-github-event'];
    if (event === undefined || event === '') return undefined;
    const action = stringAt(payload, 'action');
    return action === undefined ? event : `${event}.${action}`;
  },
  stripe: payloadType,
  'standard-webhooks': payloadType,
  // Events API callbacks carry `event.type`; url_verification and the like only a top-level `type`.
  slack: (_headers, payload) => stringAt(objectAt(payload, 'event'), 'type') ?? stringAt(payload, 'type'),
  shopify: (headers) => headers['x-shopify-topic'] || undefined,
};

/** The reader a signature scheme offers, if the table knows it. */
export function eventTypeReaderFor(scheme: string | undefined): EventTypeReader | undefined {
  return scheme === undefined || !Object.hasOwn(EVENT_TYPE_BY_SCHEME, scheme) ? undefined : EVENT_TYPE_BY_SCHEME[scheme];
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
