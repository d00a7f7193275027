import { networkCode, parseJson } from '../../channels/http.js';
import { parseRetryAfterMs } from '../../retry.js';
import { relayPaths, type AckAnswer, type PullAnswer } from '../wire.js';

/** How much longer than its wait a pull may take before it counts as lost (slow networks, a busy edge). */
const PULL_GRACE_MS = 20_000;
const ACK_TIMEOUT_MS = 20_000;

export interface EdgeApiOptions {
  /** The edge's hooks URL: `https://edge.example/hooks`. */
  from: string;
  target: string;
  token: string;
  consumer: string;
  fetch: typeof globalThis.fetch;
}

/** How a call to the edge went: answered, refused for good (a wrong token, no such target), or not now. */
export type EdgeOutcome<T> =
  | { kind: 'ok'; answer: T }
  | { kind: 'refused'; status: number; code: string | undefined; message: string }
  | { kind: 'unavailable'; reason: string; retryAfterMs?: number };

export interface EdgeApi {
  pull(waitSeconds: number, max: number, signal: AbortSignal): Promise<EdgeOutcome<PullAnswer>>;
  ack(ids: readonly string[], refused: ReadonlyArray<{ id: string; reason: string }>, signal: AbortSignal): Promise<EdgeOutcome<AckAnswer>>;
}

/** Statuses after which asking again cannot help: the token, the target or the request is wrong. */
const FINAL = new Set([400, 401, 403, 404, 405, 413, 415]);

/** The pull API of a relay target on the edge (src/relay/wire.ts), with the target's token. */
export function createEdgeApi(options: EdgeApiOptions): EdgeApi {
  const base = options.from.replace(/\/+$/, '');
  const url = new URL(base);
  const paths = relayPaths(url.pathname.replace(/\/+$/, ''), options.target);
  const origin = url.origin;
  const headers = { authorization: `Bearer ${options.token}` };
  return {
    pull(waitSeconds, max, signal) {
      const query = new URLSearchParams({ consumer: options.consumer, wait: String(waitSeconds), max: String(max) });
      return call<PullAnswer>(options.fetch, `${origin}${paths.events}?${query}`, { headers }, AbortSignal.any([signal, AbortSignal.timeout(waitSeconds * 1000 + PULL_GRACE_MS)]));
    },
    ack(ids, refused, signal) {
      const body = JSON.stringify({ consumer: options.consumer, ids, ...(refused.length === 0 ? {} : { refused }) });
      const init = { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body };
      return call<AckAnswer>(options.fetch, `${origin}${paths.ack}`, init, AbortSignal.any([signal, AbortSignal.timeout(ACK_TIMEOUT_MS)]));
    },
  };
}

async function call<T>(fetch: typeof globalThis.fetch, url: string, init: RequestInit, signal: AbortSignal): Promise<EdgeOutcome<T>> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, signal, redirect: 'manual' });
    text = await response.text();
  } catch (error) {
    if (signal.aborted && (signal.reason as Error | undefined)?.name !== 'TimeoutError') throw error;
    return { kind: 'unavailable', reason: signal.aborted ? 'no answer in time' : `unreachable (${networkCode(error)})` };
  }
  const json = parseJson(text) as { code?: unknown; error?: unknown } | undefined;
  if (response.ok) return json === undefined ? { kind: 'unavailable', reason: `answered ${response.status} without JSON` } : { kind: 'ok', answer: json as T };
  const code = typeof json?.code === 'string' ? json.code : undefined;
  const message = typeof json?.error === 'string' ? json.error : `HTTP ${response.status}`;
  if (FINAL.has(response.status)) return { kind: 'refused', status: response.status, code, message };
  const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'));
  return { kind: 'unavailable', reason: `answered ${response.status}${code === undefined ? '' : ` ${code}`}: ${message}`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}
