import { hash, timingSafeEqual } from 'node:crypto';

export type TokenSource = 'bearer' | 'header' | 'query';

export interface PresentedToken {
  value: string;
  source: TokenSource;
}

/**
 * Finds the token a request carries. `Authorization: Bearer` wins, then `x-hookgate-token`,
 * then the deprecated `?token=` query parameter.
 */
export function extractToken(headers: Record<string, string | string[] | undefined>, querystring: string): PresentedToken | undefined {
  const authorization = single(headers['authorization']);
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S.*)$/i.exec(authorization.trim());
    if (match?.[1] !== undefined) return { value: match[1].trim(), source: 'bearer' };
  }
  const header = single(headers['x-hookgate-token']);
  if (header !== undefined && header.trim() !== '') return { value: header.trim(), source: 'header' };
  // Parsed only when no header carries a token: the common request never pays for it.
  const fromQuery = querystring === '' ? null : new URLSearchParams(querystring).get('token');
  if (fromQuery !== null && fromQuery !== '') return { value: fromQuery, source: 'query' };
  return undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  // A repeated header is ambiguous: take none rather than guess which one counts.
  return Array.isArray(value) ? undefined : value;
}

/** Compares in time independent of where the strings differ (and of their lengths: both are hashed). */
export function createTokenMatcher(expected: string): (presented: string) => boolean {
  const expectedDigest = digest(expected);
  return (presented) => timingSafeEqual(digest(presented), expectedDigest);
}

function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}
