import type { JSONWebKeySet, JWTPayload, createLocalJWKSet } from 'jose';

export interface OidcVerifierOptions {
  certsUrl: string;
  audience: string;
  /**
   * `email` must be this and `email_verified` true. Required: any Google Cloud service account can
   * mint an ID token with any audience, so the audience alone names no sender.
   */
  serviceAccountEmail: string;
  fetch?: typeof fetch;
  now?: () => number;
}

/** Why a push token was refused, for the log (never the token itself). */
export class PushTokenError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PushTokenError';
  }
}

const ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];
/** Without Cache-Control, keys are kept this long. */
const DEFAULT_MAX_AGE_MS = 3_600_000;
/** An unknown key id refetches the keys at most this often (a flood of forged kids costs one fetch). */
const REFETCH_FLOOR_MS = 30_000;

/**
 * Verifies the OIDC JWT Pub/Sub sends with a push (RS256 by Google's keys, iss, aud, exp, and
 * the service account's email). The JWKS is cached as long as its Cache-Control max-age says.
 */
export function createOidcVerifier(options: OidcVerifierOptions): (token: string) => Promise<JWTPayload> {
  const send = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  let cached: { keys: ReturnType<typeof createLocalJWKSet>; expiresAt: number; fetchedAt: number } | undefined;
  let fetching: Promise<NonNullable<typeof cached>> | undefined;

  async function fetchKeys(): Promise<NonNullable<typeof cached>> {
    const response = await send(options.certsUrl, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`GET ${options.certsUrl} → ${response.status}`);
    const jwks = (await response.json()) as JSONWebKeySet;
    const fetchedAt = now();
    const { createLocalJWKSet: localSet } = await import('jose');
    cached = { keys: localSet(jwks), expiresAt: fetchedAt + maxAgeMs(response.headers.get('cache-control')), fetchedAt };
    return cached;
  }

  function keys(force: boolean): Promise<NonNullable<typeof cached>> {
    if (cached !== undefined && !force && now() < cached.expiresAt) return Promise.resolve(cached);
    if (cached !== undefined && force && now() - cached.fetchedAt < REFETCH_FLOOR_MS) return Promise.resolve(cached);
    fetching ??= fetchKeys().finally(() => {
      fetching = undefined;
    });
    return fetching;
  }

  async function verifyWith(token: string, force: boolean): Promise<JWTPayload> {
    const { keys: keySet } = await keys(force);
    const { jwtVerify } = await import('jose');
    const { payload } = await jwtVerify(token, keySet, {
      issuer: ISSUERS,
      audience: options.audience,
      algorithms: ['RS256'],
      currentDate: new Date(now()),
      clockTolerance: 30,
      requiredClaims: ['exp', 'iat'],
    });
    return payload;
  }

  return async (token) => {
    const { errors } = await import('jose'); // loaded on first use, like the other Gmail-only libraries
    let payload: JWTPayload;
    try {
      try {
        payload = await verifyWith(token, false);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
        payload = await verifyWith(token, true); // Google rotated its keys since the cache was filled
      }
    } catch (error) {
      if (error instanceof errors.JOSEError) throw new PushTokenError(`${error.code}: ${error.message}`);
      throw error;
    }
    if (payload['email'] !== options.serviceAccountEmail) throw new PushTokenError('email is not the configured service account');
    if (payload['email_verified'] !== true) throw new PushTokenError('email_verified is not true');
    return payload;
  };
}

function maxAgeMs(cacheControl: string | null): number {
  const match = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '');
  return match?.[1] === undefined ? DEFAULT_MAX_AGE_MS : Number(match[1]) * 1000;
}
