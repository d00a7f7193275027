import { setTimeout as sleep } from 'node:timers/promises';
import { parseRetryAfterMs, retryDelay, type RetryPolicy } from '../../retry.js';

/** An access token for Google's APIs; `invalidate` drops a cached one that Google refused (401). */
export interface AccessTokens {
  get(): Promise<string>;
  invalidate(): void;
}

export interface GoogleHttpOptions {
  fetch: typeof fetch;
  tokens: AccessTokens;
  /** Tries for a 429/5xx or a network failure before giving up (the caller keeps the notification). */
  attempts?: number;
  /** Waits between tries; tests pass one that does not sleep. */
  delay?: (ms: number) => Promise<void>;
  /** First backoff step (retryDelay); doubled per try, or Google's Retry-After when it sends one. */
  baseDelayMs?: number;
  /** Told of each call that failed for good (404s excepted: they answer questions like "does the topic exist"). */
  onApiError?: (api: 'gmail' | 'pubsub', error: GoogleApiError) => void;
}

/** A refusal from a Google API, with what Google said (never a token) and whether a retry may help. */
export class GoogleApiError extends Error {
  readonly status: number;
  /** google.rpc status, e.g. PERMISSION_DENIED. */
  readonly googleStatus: string | undefined;
  /** ErrorInfo reason, e.g. SERVICE_DISABLED. */
  readonly reason: string | undefined;

  constructor(message: string, status: number, googleStatus: string | undefined, reason: string | undefined) {
    super(message);
    this.name = 'GoogleApiError';
    this.status = status;
    this.googleStatus = googleStatus;
    this.reason = reason;
  }

  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export type GoogleRequest = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

/**
 * JSON over Google's REST APIs with a bearer token: 429, 5xx and network failures are retried
 * with exponential backoff; a 401 refreshes the token once. Anything else throws GoogleApiError
 * carrying Google's own message, which names the missing permission or disabled API.
 */
export function createGoogleRequest(options: GoogleHttpOptions): GoogleRequest {
  const attempts = options.attempts ?? 6;
  const delay = options.delay ?? ((ms: number) => sleep(ms));
  // Google's Retry-After is honoured up to a minute; the computed steps stay far below it.
  const policy: RetryPolicy = { baseMs: options.baseDelayMs ?? 500, maxMs: 60_000 };
  const failed = (url: string, error: GoogleApiError): GoogleApiError => {
    if (error.status !== 404) options.onApiError?.(new URL(url).pathname.startsWith('/gmail/') ? 'gmail' : 'pubsub', error);
    return error;
  };
  return async (method, url, body, signal) => {
    let refreshed = false;
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await send(options, method, url, body, signal);
      } catch (error) {
        // A revoked grant or a stop is final: retrying cannot help.
        if ((error as { fatal?: unknown }).fatal === true || signal?.aborted === true) throw error;
        if (attempt >= attempts) throw failed(url, new GoogleApiError(`${method} ${pathOf(url)}: ${(error as Error).message}`, 0, undefined, undefined));
        await delay(retryDelay(attempt, undefined, policy));
        continue;
      }
      if (response.ok) return response.status === 204 ? {} : await response.json();
      const failure = await apiError(method, url, response);
      if (response.status === 401 && !refreshed) {
        refreshed = true;
        options.tokens.invalidate();
        continue;
      }
      if (!failure.retryable || attempt >= attempts) throw failed(url, failure);
      await delay(retryDelay(attempt, parseRetryAfterMs(response.headers.get('retry-after')), policy));
      if (signal?.aborted === true) throw failure;
    }
  };
}

async function send(options: GoogleHttpOptions, method: string, url: string, body: unknown, signal: AbortSignal | undefined): Promise<Response> {
  const token = await options.tokens.get();
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return options.fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: signal === undefined ? AbortSignal.timeout(90_000) : AbortSignal.any([signal, AbortSignal.timeout(90_000)]) });
}

interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { reason?: string }[] };
}

async function apiError(method: string, url: string, response: Response): Promise<GoogleApiError> {
  let parsed: GoogleErrorBody = {};
  try {
    parsed = (await response.json()) as GoogleErrorBody;
  } catch {
    // not JSON: the status says enough
  }
  const detail = parsed.error;
  const reason = detail?.details?.find((item) => typeof item.reason === 'string')?.reason;
  const said = typeof detail?.message === 'string' ? `: ${detail.message.slice(0, 500)}` : '';
  return new GoogleApiError(`${method} ${pathOf(url)} → ${response.status}${detail?.status ? ` ${detail.status}` : ''}${said}`, response.status, detail?.status, reason);
}

/** The URL without its query (a page token is not a secret, but it is noise in a message). */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
