import { looksSecret } from '../secret-headers.js';

/**
 * Credentials removed from what the console may show with gateway.console.showPayloads: keys and
 * header names that look like secrets (the list templates use too: src/secret-headers.ts) lose their
 * values, long strings are cut, depth is bounded.
 */
const MAX_STRING = 500;
const MAX_DEPTH = 6;
const MAX_KEYS = 50;
const REDACTED = '[redacted]';

/** `signatureHeaders`: every scheme's signature headers and each mapping's configured one, whatever their names look like. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>, signatureHeaders: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = looksSecret(name) || signatureHeaders.has(name.toLowerCase()) ? REDACTED : cut(Array.isArray(value) ? value.join(', ') : value);
  }
  return out;
}

export function redactPayload(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cut(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.slice(0, MAX_KEYS).map((item) => redactPayload(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value).slice(0, MAX_KEYS)) {
    out[key] = looksSecret(key) ? REDACTED : redactPayload(inner, depth + 1);
  }
  return out;
}

function cut(text: string): string {
  return text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…` : text;
}
