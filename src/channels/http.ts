import { parseRetryAfterMs } from '../retry.js';
import { DeliveryError } from './types.js';

/** A send that hangs this long is abandoned and retried; chat APIs answer in well under a second. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Error texts from services are cut to this many characters before they reach outcomes and logs. */
const MAX_DETAIL_CHARS = 300;
/** Responses of chat APIs are small; a bigger one is cut rather than buffered whole. */
const MAX_RESPONSE_CHARS = 65_536;

export interface HttpReply {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
  text: string;
}

export interface HttpRequest {
  /** Default POST; a GET sends no body. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A JSON body (sent as application/json) … */
  json?: unknown;
  /** … or a form body (application/x-www-form-urlencoded). */
  form?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/**
 * POSTs to a service. Transport failures become DeliveryErrors whose messages never contain the
 * URL: several services carry a credential in it (Telegram's bot token, BlueBubbles' password).
 */
export async function post(fetchFn: typeof globalThis.fetch, url: string, request: HttpRequest): Promise<HttpReply> {
  if (request.signal?.aborted === true) throw new DeliveryError('delivery aborted', { retryable: false });
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]);
  let response: Response;
  try {
    const method = request.method ?? 'POST';
    const body = method === 'GET' ? null : requestBody(request);
    response = await fetchFn(url, { method, headers: requestHeaders(request), body, signal, redirect: 'manual' });
  } catch (error) {
    throw transportError(error, request.signal, timeout);
  }
  let text: string;
  try {
    text = (await response.text()).slice(0, MAX_RESPONSE_CHARS);
  } catch (error) {
    throw transportError(error, request.signal, timeout);
  }
  if (response.status >= 300 && response.status < 400) {
    // Following a redirect could carry a token to another host; services never redirect API calls.
    throw new DeliveryError(`unexpected redirect (HTTP ${response.status})`, { retryable: false, status: response.status });
  }
  return { status: response.status, headers: response.headers, json: parseJson(text), text };
}

function requestHeaders(request: HttpRequest): Record<string, string> {
  const type = request.form === undefined ? 'application/json; charset=utf-8' : 'application/x-www-form-urlencoded';
  return { 'content-type': type, accept: 'application/json', ...request.headers };
}

function requestBody(request: HttpRequest): string {
  return request.form === undefined ? JSON.stringify(request.json ?? {}) : new URLSearchParams(request.form).toString();
}

function transportError(error: unknown, callerSignal: AbortSignal | undefined, timeout: AbortSignal): DeliveryError {
  if (callerSignal?.aborted === true) return new DeliveryError('delivery aborted', { retryable: false, cause: error });
  if (timeout.aborted) return new DeliveryError(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`, { retryable: true, cause: error });
  return new DeliveryError(`network error (${networkCode(error)})`, { retryable: true, cause: error });
}

/** undici puts the system error code (ECONNREFUSED, ENOTFOUND …) on the cause; its message may quote the URL. */
export function networkCode(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown';
}

export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}


/** Milliseconds until an epoch time in seconds (X-RateLimit-Reset, RateLimit-Reset); undefined when absent or past. */
export function untilEpochSeconds(value: string | null, now: number): number | undefined {
  if (value === null || !/^\d{1,12}$/.test(value.trim())) return undefined;
  const wait = Number(value.trim()) * 1000 - now;
  return wait > 0 ? wait : undefined;
}

/** Seconds from a JSON body field (Telegram's retry_after, Discord's retry_after) in milliseconds. */
export function secondsToMs(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
}

/** Rate limits, timeouts and server errors pass; every other status is the service's final word. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** URLs replaced by `<url>`: a service's error or a fetch failure may quote one with a token in it. */
export function scrubUrls(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>');
}

/** A service's error text made safe to show: one line, no URLs, bounded. */
export function detail(value: unknown, fallback: string): string {
  if (typeof value !== 'string' || value.trim() === '') return fallback;
  const clean = scrubUrls(value).replace(/\s+/g, ' ').trim();
  return clean.length > MAX_DETAIL_CHARS ? `${clean.slice(0, MAX_DETAIL_CHARS)}…` : clean;
}

/** The DeliveryError for an HTTP answer that is not a success. */
export function httpFailure(reply: HttpReply, message: string, retryAfterMs?: number): DeliveryError {
  return new DeliveryError(`${message} (HTTP ${reply.status})`, {
    retryable: isRetryableStatus(reply.status),
    retryAfterMs: retryAfterMs ?? parseRetryAfterMs(reply.headers.get('retry-after')),
    status: reply.status,
  });
}

/** Every service needs a recipient; an empty one is a configuration mistake, not worth a request. */
export function requireRecipient(to: string, what: string): string {
  const trimmed = to.trim();
  if (trimmed === '') throw new DeliveryError(`no recipient: \`to\` must be ${what}`, { retryable: false });
  return trimmed;
}

/**
 * One path segment of a service URL built from a recipient: percent-encoded, and never empty, `.` or
 * `..`, which a URL parser resolves (`repos/acme/../issues` is `repos/issues`). Formats are checked
 * at admission already; this holds for a channel called directly too.
 */
export function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..') throw new DeliveryError('`to` names an empty, `.` or `..` path segment', { retryable: false });
  return encodeURIComponent(value);
}

/** Joins a configured base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** Reads a field of an unknown JSON value without trusting its shape. */
export function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
