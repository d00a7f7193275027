import { hash, timingSafeEqual } from 'node:crypto';
import { HookError } from '../errors.js';

export type TokenSource = 'bearer' | 'header' | 'query';

export interface PresentedToken {
  value: string;
  source: TokenSource;
}

/** Headers as node gives them in `req.headersDistinct`: every value a list, repeats kept apart. */
export type DistinctHeaders = Record<string, string[] | undefined>;

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-hookgate-token', 'x-openclaw-token']);

/**
 * The credential headers of a request (`authorization`, `x-hookgate-token`, `x-openclaw-token`),
 * repeats kept apart, as `req.headersDistinct` has them. Read from `req.rawHeaders`: node builds
 * `headersDistinct` for every header on first use, a cost each hook request would pay for three.
 */
export function credentialHeaders(rawHeaders: readonly string[]): DistinctHeaders {
  const found: DistinctHeaders = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    // Only names of the right length are lower-cased: the common header costs one comparison.
    if (name.length !== 13 && name.length !== 16) continue;
    const lower = name.toLowerCase();
    if (CREDENTIAL_HEADERS.has(lower)) (found[lower] ??= []).push(rawHeaders[i + 1] as string);
  }
  return found;
}

export interface ExtractOptions {
  /** hooks.compat.openclawHeaders: `x-openclaw-token` counts as `x-hookgate-token` (which wins when both are sent). */
  openclawHeader?: boolean;
}

/**
 * Finds the token a request carries. `Authorization: Bearer` wins, then `x-hookgate-token` (or,
 * when enabled, its OpenClaw alias `x-openclaw-token`), then the deprecated `?token=` query
 * parameter. Takes `req.headersDistinct`: node keeps only the first of two `Authorization` headers
 * in `req.headers`, and a repeated credential header is refused (400), never guessed at.
 */
export function extractToken(headers: DistinctHeaders, querystring: string, options: ExtractOptions = {}): PresentedToken | undefined {
  const bearer = bearerToken(headers);
  if (bearer !== undefined) return { value: bearer, source: 'bearer' };
  const header = headerToken(headers, 'x-hookgate-token');
  if (header !== undefined) return { value: header, source: 'header' };
  const alias = options.openclawHeader === true ? headerToken(headers, 'x-openclaw-token') : undefined;
  if (alias !== undefined) return { value: alias, source: 'header' };
  // Parsed only when no header carries a token: the common request never pays for it.
  const fromQuery = querystring === '' ? null : new URLSearchParams(querystring).get('token');
  if (fromQuery !== null && fromQuery !== '') return { value: fromQuery, source: 'query' };
  return undefined;
}

function headerToken(headers: DistinctHeaders, name: string): string | undefined {
  const header = singleHeader(headers, name);
  const value = header === undefined ? '' : trimAsciiWhitespace(header);
  return value === '' ? undefined : value;
}

/** The token of an `Authorization: Bearer <t>` header, if there is one (repeated: 400). */
export function bearerToken(headers: DistinctHeaders): string | undefined {
  const authorization = singleHeader(headers, 'authorization');
  if (authorization === undefined) return undefined;
  const match = /^Bearer[ \t]+(.+)$/i.exec(trimAsciiWhitespace(authorization));
  return match?.[1] === undefined ? undefined : match[1];
}

/** A credential header's one value; sent twice it is ambiguous, so the request is refused. */
export function singleHeader(headers: DistinctHeaders, name: string): string | undefined {
  const values = headers[name];
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw new HookError('AMBIGUOUS_CREDENTIALS', `the ${name} header was sent more than once`);
  return values[0];
}

/**
 * Only HTTP's own white space (space, tab) is trimmed: `String.prototype.trim` also removes U+00A0
 * and other Unicode spaces, which would make a token with a trailing no-break space pass.
 */
export function trimAsciiWhitespace(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Compares in time independent of where the strings differ (and of their lengths: both are hashed). */
export function createTokenMatcher(expected: string): (presented: string) => boolean {
  const expectedDigest = digest(expected);
  return (presented) => timingSafeEqual(digest(presented), expectedDigest);
}

function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}
