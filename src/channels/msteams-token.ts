import { detail, field, httpFailure, post } from './http.js';
import { DeliveryError } from './types.js';

/** Refresh this long before expiry (or at half-life for short tokens) so a send never races the expiry. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export interface TokenSourceOptions {
  fetch: typeof globalThis.fetch;
  tokenUrl: string;
  appId: string;
  appPassword: string;
  now: () => number;
}

/** Bot Framework access tokens (OAuth 2.0 client credentials), cached per channel instance. */
export interface TokenSource {
  get(): Promise<string>;
  /** Forget the cached token, e.g. after the connector answered 401. */
  invalidate(): void;
}

export function createTokenSource(options: TokenSourceOptions): TokenSource {
  let cached: { token: string; refreshAt: number } | undefined;
  // Concurrent sends share one token request instead of each asking for its own.
  let pending: Promise<string> | undefined;

  async function fetchToken(): Promise<string> {
    const form = {
      grant_type: 'client_credentials',
      client_id: options.appId,
      client_secret: options.appPassword,
      scope: 'https://api.botframework.com/.default',
    };
    const reply = await post(options.fetch, options.tokenUrl, { form });
    const token = field(reply.json, 'access_token');
    const expiresIn = field(reply.json, 'expires_in');
    if (reply.status !== 200 || typeof token !== 'string' || token === '') {
      // Entra ID errors: { error: "invalid_client", error_description: "AADSTS7000215: …" }.
      const error = detail(field(reply.json, 'error'), 'token request refused');
      const description = detail(field(reply.json, 'error_description'), '');
      throw httpFailure(reply, `Bot Framework token: ${description === '' ? error : `${error}: ${description}`}`);
    }
    const lifetimeMs = (typeof expiresIn === 'number' ? expiresIn : Number(expiresIn)) * 1000;
    if (!Number.isFinite(lifetimeMs) || lifetimeMs <= 0) {
      throw new DeliveryError('Bot Framework token: answer without a valid expires_in', { retryable: true, status: reply.status });
    }
    cached = { token, refreshAt: options.now() + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2) };
    return token;
  }

  return {
    async get() {
      if (cached !== undefined && options.now() < cached.refreshAt) return cached.token;
      pending ??= fetchToken().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
