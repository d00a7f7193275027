import { parseRetryAfterMs } from '../retry.js';
import { ProviderError } from './types.js';

/** Longest message taken from a server's error body into a ProviderError. */
const SERVER_MESSAGE_MAX = 300;

/** Reads a response body, refusing one larger than `maxBytes` instead of buffering it. */
export async function readCappedText(id: string, response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(id, maxBytes, response.status);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(id, maxBytes, response.status);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function tooLarge(id: string, maxBytes: number, status: number): ProviderError {
  return new ProviderError('malformed', `provider "${id}": response larger than ${maxBytes} bytes`, { status });
}

/** The reply text of a Chat Completions response: `choices[0].message.content`, a string or text parts. */
export function parseCompletion(id: string, raw: string, secrets: readonly string[]): string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new ProviderError('malformed', `provider "${id}": response is not JSON`, { status: 200 });
  }
  const content = field(field(field(field(body, 'choices'), 0), 'message'), 'content');
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.map((part) => field(part, 'text')).filter((text): text is string => typeof text === 'string');
    if (texts.length > 0) return texts.join('');
  }
  // Some servers answer 200 with an error object; its message is the useful part.
  const error = field(field(body, 'error'), 'message') ?? field(body, 'error');
  const detail = typeof error === 'string' ? `: ${shorten(error, secrets)}` : '';
  throw new ProviderError('malformed', `provider "${id}": response has no choices[0].message.content${detail}`, { status: 200 });
}

/** The ProviderError for a non-2xx answer; `secrets` are blanked out of anything the server echoed. */
export function errorFromResponse(id: string, response: Response, raw: string, secrets: readonly string[]): ProviderError {
  const status = response.status;
  const message = serverMessage(raw, secrets);
  const suffix = message === '' ? '' : `: ${message}`;
  if (status === 401 || status === 403) {
    return new ProviderError('auth', `provider "${id}": authentication failed (HTTP ${status})${suffix}`, { status });
  }
  if (status === 429) {
    const header = response.headers.get('retry-after');
    const retryAfterMs = parseRetryAfterMs(header);
    const retryAfterSeconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
    const wait = header === null ? '' : ` (Retry-After: ${clean(header).slice(0, 40)})`;
    return new ProviderError('rate-limited', `provider "${id}": rate limited (HTTP 429)${wait}${suffix}`, {
      status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  return new ProviderError('http', `provider "${id}": HTTP ${status}${suffix}`, { status });
}

/** `error.message` (or `error`, or `message`) of a JSON error body, else the body itself; cleaned and truncated. */
function serverMessage(raw: string, secrets: readonly string[]): string {
  let message: unknown = raw;
  try {
    const body: unknown = JSON.parse(raw);
    const error = field(body, 'error');
    message = field(error, 'message') ?? error ?? field(body, 'message') ?? raw;
  } catch {
    // Not JSON (an HTML error page, a proxy's text): show its start.
  }
  return shorten(typeof message === 'string' ? message : JSON.stringify(message), secrets);
}

/** Redacted before truncation, so a secret cut in half cannot survive as a fragment. */
function shorten(message: string, secrets: readonly string[]): string {
  const text = clean(redact(message, secrets));
  return text.length > SERVER_MESSAGE_MAX ? `${text.slice(0, SERVER_MESSAGE_MAX)}…` : text;
}

function field(value: unknown, key: string | number): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  return Object.hasOwn(value, key) ? (value as Record<string | number, unknown>)[key] : undefined;
}

function clean(text: string): string {
  // Control characters would let a hostile server forge log lines.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((result, secret) => (secret.length >= 4 ? result.split(secret).join('[redacted]') : result), text);
}
