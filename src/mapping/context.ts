import { CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAMETERS, looksSecret } from '../secret-headers.js';
import type { SafeRecord } from '../compiled-template.js';

/** The data templates see (its rules: src/compiled-template.ts), built from a request. */
export type { SafeRecord } from '../compiled-template.js';

const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface ContextParts {
  /** Already safe (toSafeRecord), made once per request and shared by its fan-out items. */
  headers: SafeRecord;
  query: SafeRecord;
  path: string;
  now: string;
}

function renderAsJson(this: unknown): string {
  return JSON.stringify(this);
}

function markJson<T extends object>(target: T): T {
  Object.defineProperty(target, Symbol.toPrimitive, { value: renderAsJson, enumerable: false });
  return target;
}

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/**
 * A deep copy of JSON-like data that templates may read safely. Iterative, so a deeply nested
 * payload (the HTTP layer's depth cap is configurable) cannot overflow the stack.
 */
function toSafeValue(value: unknown): unknown {
  const pending: Array<[source: object, target: SafeRecord | unknown[]]> = [];
  const copy = (item: unknown): unknown => {
    if (item === null || typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') return item;
    if (typeof item === 'bigint') return item.toString();
    if (typeof item !== 'object') return undefined;
    const target = Array.isArray(item) ? markJson(new Array<unknown>(item.length)) : markJson(Object.create(null) as SafeRecord);
    pending.push([item, target]);
    return target;
  };
  const root = copy(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, target] = next;
    if (Array.isArray(target)) {
      (source as unknown[]).forEach((item, index) => (target[index] = copy(item)));
      continue;
    }
    for (const key of Object.keys(source)) {
      if (FORBIDDEN_KEYS.has(key)) continue;
      const item = copy((source as Record<string, unknown>)[key]);
      if (item !== undefined) target[key] = item;
    }
  }
  return root;
}

export function toSafeRecord(value: Record<string, unknown>): SafeRecord {
  return toSafeValue(value) as SafeRecord;
}

/** A safe array (already safe items) that renders as JSON. */
export function safeList(items: unknown[]): unknown[] {
  return markJson(items);
}

/** A fresh safe record with one key replaced: the per-item payload of a fan-out, sharing the rest. */
export function withField(record: SafeRecord, key: string, value: unknown): SafeRecord {
  const copy: SafeRecord = Object.create(null) as SafeRecord;
  Object.assign(copy, record);
  copy[key] = value;
  return markJson(copy);
}

/**
 * Root of the template context: the payload's fields, then the fixed names, which win over
 * payload fields of the same name (the payload's own value stays reachable as `payload.<name>`).
 */
export function buildTemplateContext(payload: SafeRecord, parts: ContextParts): SafeRecord {
  const root: SafeRecord = Object.create(null) as SafeRecord;
  Object.assign(root, payload);
  root['payload'] = payload;
  root['headers'] = parts.headers;
  root['query'] = parts.query;
  root['path'] = parts.path;
  root['now'] = parts.now;
  return markJson(root);
}

/**
 * A request's headers or query parameters as templates and transforms may see them: `visible` to
 * every mapping, `withheld` from those that do not opt in.
 */
export interface SecretSplit {
  visible: Record<string, string>;
  /** Names that look like secrets (src/secret-headers.ts): only for a mapping's `allowSecretHeaders` (`allowSecretQuery`). */
  withheld: Record<string, string>;
}

/**
 * Header names lower-cased; the request's credentials and every signature header (`signatureHeaders`:
 * every scheme's and every mapping's, kept out even of mappings that do not verify them) removed;
 * secret-looking ones set apart.
 */
export function sanitizeHeaders(headers: Record<string, string>, signatureHeaders: ReadonlySet<string>): SecretSplit {
  const split: SecretSplit = { visible: {}, withheld: {} };
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (CREDENTIAL_HEADERS.has(lower) || signatureHeaders.has(lower) || FORBIDDEN_KEYS.has(lower)) continue;
    split[looksSecret(lower) ? 'withheld' : 'visible'][lower] = value;
  }
  return split;
}

/** Query parameters without the (deprecated) token parameter; secret-looking ones (the header list's names) set apart. */
export function sanitizeQuery(query: Record<string, string>): SecretSplit {
  const split: SecretSplit = { visible: {}, withheld: {} };
  for (const [name, value] of Object.entries(query)) {
    if (CREDENTIAL_QUERY_PARAMETERS.has(name) || FORBIDDEN_KEYS.has(name)) continue;
    split[looksSecret(name) ? 'withheld' : 'visible'][name] = value;
  }
  return split;
}
