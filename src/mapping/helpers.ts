import type { HelperDelegate, HelperOptions } from 'handlebars';
import { isForbiddenKey } from './context.js';

/**
 * The template helpers. Each takes Handlebars' options object as its last argument; they never
 * throw on odd input (a payload is arbitrary), they fall back to the plainest sensible text.
 */
export const TEMPLATE_HELPERS: Readonly<Record<string, HelperDelegate>> = {
  /** `{{json value}}` or `{{json value indent=2}}`: the value as JSON; missing → empty. */
  json(value: unknown, options: HelperOptions): string {
    if (value === undefined) return '';
    const indent = options.hash?.['indent'];
    return JSON.stringify(value, null, typeof indent === 'number' ? Math.min(Math.max(indent, 0), 10) : undefined) ?? '';
  },
  /** `{{default a b "fallback"}}`: the first argument that is not missing, null or empty. */
  default(...args: unknown[]): string {
    for (const value of args.slice(0, -1)) {
      const text = toText(value);
      if (text !== '') return text;
    }
    return '';
  },
  /** `{{truncate value 200}}` or `{{truncate value 200 "..."}}`: at most N characters, then the suffix (default …). */
  truncate(value: unknown, length: unknown, ...rest: unknown[]): string {
    const text = toText(value);
    if (typeof length !== 'number' || !Number.isFinite(length) || length < 0) return text;
    const suffix = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : '…';
    const chars = Array.from(text);
    return chars.length <= length ? text : chars.slice(0, Math.floor(length)).join('') + suffix;
  },
  lower(value: unknown): string {
    return toText(value).toLowerCase();
  },
  upper(value: unknown): string {
    return toText(value).toUpperCase();
  },
  /**
   * `{{oneline title 120}}`: every run of whitespace (newlines too) as one space, trimmed, at most
   * N characters then …: titles and names from a payload read as one clean line.
   */
  oneline(value: unknown, ...rest: unknown[]): string {
    const text = toText(value).replace(/\s+/g, ' ').trim();
    return cut(text, rest.length > 1 ? rest[0] : undefined);
  },
  /**
   * `{{excerpt body 1500}}`: body text for a prompt: runs of spaces and tabs as one space, lines
   * trimmed, at most one blank line in a row, at most N characters then ….
   */
  excerpt(value: unknown, ...rest: unknown[]): string {
    const lines = toText(value).replace(/\r\n?/g, '\n').split('\n').map((line) => line.replace(/[^\S\n]+/g, ' ').trim());
    const text = lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
    return cut(text, rest.length > 1 ? rest[0] : undefined);
  },
  /**
   * `{{pick action "synchronize" "pushed to" "closed" "closed"}}`: the text paired with the value,
   * else (odd count) the last argument, else the value with underscores as spaces.
   */
  pick(value: unknown, ...rest: unknown[]): string {
    const args = rest.slice(0, -1);
    const key = toText(value);
    for (let index = 0; index + 1 < args.length; index += 2) {
      if (toText(args[index]) === key) return toText(args[index + 1]);
    }
    return args.length % 2 === 1 ? toText(args[args.length - 1]) : key.replace(/_/g, ' ');
  },
  /**
   * `{{money amount currency}}`: an amount in the currency's minor unit (Stripe's, Shopify's
   * cents) as `12.34 USD`; zero-decimal currencies (JPY, KRW…) as they are. Not a number → empty.
   */
  money(amount: unknown, ...rest: unknown[]): string {
    const value = typeof amount === 'string' && /^-?\d+$/.test(amount) ? Number(amount) : amount;
    if (typeof value !== 'number' || !Number.isFinite(value)) return '';
    const currency = rest.length > 1 ? toText(rest[0]).toUpperCase() : '';
    const text = ZERO_DECIMAL_CURRENCIES.has(currency) ? String(value) : (value / 100).toFixed(2);
    return currency === '' ? text : `${text} ${currency}`;
  },
  /** `{{date created}}`: Unix seconds (or milliseconds, past year 33658) as `2025-01-02 03:04 UTC`; else the text as given. */
  date(value: unknown): string {
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0) return toText(value);
    const date = new Date(number > 1e12 ? number : number * 1000);
    return Number.isNaN(date.getTime()) ? toText(value) : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  },
  /** `{{join labels ", "}}`: array items (objects as JSON) joined by the separator (default ", "). */
  join(value: unknown, ...rest: unknown[]): string {
    if (!Array.isArray(value)) return toText(value);
    const separator = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : ', ';
    return value.map(toText).join(separator);
  },
};

/**
 * A helper named without an argument (`{{json}}`, `{{upper}}`, `{{if}}`) is called with only
 * Handlebars' options object, which carries the whole template context (payload, headers,
 * query). Such a call renders the field of the helper's name instead, as a plain path renderer
 * does, so a payload field called `json` or `if` reads as itself and the context never leaks.
 */
export function withFieldFallback(name: string, helper: HelperDelegate): HelperDelegate {
  return function (this: unknown, ...args: unknown[]): unknown {
    if (args.length === 1 && isOptions(args[0])) return toText(ownField(this, name));
    return (helper as (...rest: unknown[]) => unknown).apply(this, args);
  };
}

function isOptions(value: unknown): value is HelperOptions {
  return typeof value === 'object' && value !== null && 'hash' in value && 'data' in value;
}

function ownField(scope: unknown, name: string): unknown {
  if (scope === null || typeof scope !== 'object' || isForbiddenKey(name) || !Object.hasOwn(scope, name)) return undefined;
  return (scope as Record<string, unknown>)[name];
}

/** ISO 4217 currencies without a minor unit, as Stripe lists them. */
const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);

function cut(text: string, length: unknown): string {
  if (typeof length !== 'number' || !Number.isFinite(length) || length < 1) return text;
  const chars = Array.from(text);
  return chars.length <= length ? text : `${chars.slice(0, Math.floor(length)).join('').trimEnd()}…`;
}

/** How any value becomes text: strings as is, missing/null empty, objects and arrays as JSON. */
function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value) ?? '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}
