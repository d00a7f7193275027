import { parseRetryAfterMs } from '../retry.js';
import { networkCode, parseJson } from '../channels/http.js';
import type { TargetAnswer } from './types.js';

/** A target's answer is read up to this many bytes: enough for an error or a run id, never a flood. */
const MAX_ANSWER_BYTES = 65_536;
/** What of a refusal's body reaches the run's error (and the console). */
const MAX_REASON_CHARS = 300;
/** Statuses that say "not now" rather than "not this": the run is sent again later. */
const RETRYABLE = new Set([408, 409, 425, 429]);

export interface TargetPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** The runtime's shutdown: an aborted POST is neither accepted nor failed (the caller sees the abort). */
  signal: AbortSignal;
  fetch: typeof globalThis.fetch;
  /** For Retry-After dates. */
  now: number;
}

/** The answer with its body parsed, for the kind to read its run id from. */
export type PostedAnswer = TargetAnswer & { json?: unknown };

/**
 * POSTs one JSON body to a target and classifies the answer (see TargetAnswer). Redirects are not
 * followed (they could carry a token elsewhere). Reasons never contain the URL: a target's may
 * carry a credential. Throws only when `signal` aborted (shutdown).
 */
export async function postToTarget(post: TargetPost): Promise<PostedAnswer> {
  const timeout = AbortSignal.timeout(post.timeoutMs);
  const signal = AbortSignal.any([post.signal, timeout]);
  let response: Response;
  let text: string;
  try {
    response = await post.fetch(post.url, { method: 'POST', headers: { 'content-type': 'application/json', ...post.headers }, body: post.body, signal, redirect: 'manual' });
    text = await readCapped(response);
  } catch (error) {
    if (post.signal.aborted) throw error;
    return { kind: 'retry', reason: timeout.aborted ? `no answer within ${post.timeoutMs / 1000} s` : `unreachable (${networkCode(error)})` };
  }
  return classify(response, text, post.now);
}

function classify(response: Response, text: string, now: number): PostedAnswer {
  const { status } = response;
  const json = parseJson(text);
  if (status >= 200 && status < 300) return { kind: 'accepted', status, json };
  const said = describeBody(json, text);
  if (status >= 500 || RETRYABLE.has(status)) {
    const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), now);
    return { kind: 'retry', status, reason: `answered ${status}${said}`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  const what = status >= 300 && status < 400 ? ' (a redirect, not followed)' : said;
  return { kind: 'refused', status, reason: `answered ${status}${what}` };
}

/** `: <the target's error message>` from a JSON `error`/`message`, else the start of the text; one line. */
function describeBody(json: unknown, text: string): string {
  const record = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  const message = [record['error'], record['message'], record['detail']].find((value) => typeof value === 'string') as string | undefined;
  const said = (message ?? (json === undefined ? text : '')).replace(/\s+/g, ' ').trim();
  if (said === '') return '';
  return `: ${said.length > MAX_REASON_CHARS ? `${said.slice(0, MAX_REASON_CHARS)}…` : said}`;
}

async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= MAX_ANSWER_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

/** A string field of a JSON answer, when it is one (a target's run id). */
export function stringField(json: unknown, field: string): string | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const value = (json as Record<string, unknown>)[field];
  return typeof value === 'string' && value !== '' ? value.slice(0, 200) : undefined;
}

/** One POST of a JSON document, its headers made per attempt from the body and the time (a signature's timestamp). */
export async function postDocument(request: {
  url: string;
  document: Record<string, unknown>;
  headers: (body: string, now: number) => Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  deps: { fetch: typeof globalThis.fetch; now?: (() => number) | undefined };
}): Promise<PostedAnswer> {
  const body = JSON.stringify(request.document);
  const now = (request.deps.now ?? Date.now)();
  return postToTarget({ url: request.url, headers: request.headers(body, now), body, timeoutMs: request.timeoutMs, signal: request.signal, fetch: request.deps.fetch, now });
}
