import type { OAuth2Client } from 'google-auth-library';
import type { GmailCredentials } from './credentials.js';
import type { AccessTokens } from './google-http.js';

/** The user revoked the consent (or it expired): only `hookgate gmail setup` can fix it. */
export class GmailAuthRevokedError extends Error {
  /** Retrying cannot help (google-http.ts rethrows it at once). */
  readonly fatal = true;

  constructor(account: string) {
    super(`Gmail access for ${account} was revoked or has expired: run \`hookgate gmail setup\` again`);
    this.name = 'GmailAuthRevokedError';
  }
}

/** OAuth errors that mean the refresh token itself is no longer good. */
const DEAD_GRANT = new Set(['invalid_grant', 'unauthorized_client', 'invalid_client']);

/**
 * Access tokens from the stored refresh token, refreshed by google-auth-library before they
 * expire. A refresh refused with invalid_grant becomes GmailAuthRevokedError.
 */
export function createAccessTokens(credentials: GmailCredentials, tokenUrl: string): AccessTokens {
  // Loaded on first use: the library is large and only Gmail needs it (the bundle keeps dynamic imports lazy).
  let client: Promise<OAuth2Client> | undefined;
  const reset = () => {
    client = import('google-auth-library').then(({ OAuth2Client: Client }) => {
      const fresh = new Client({ clientId: credentials.client_id, clientSecret: credentials.client_secret, endpoints: { oauth2TokenUrl: tokenUrl } });
      fresh.setCredentials({ refresh_token: credentials.refresh_token });
      return fresh;
    });
  };
  reset();
  return {
    async get() {
      try {
        const { token } = await (await (client as Promise<OAuth2Client>)).getAccessToken();
        if (typeof token !== 'string' || token === '') throw new Error('the token endpoint returned no access token');
        return token;
      } catch (error) {
        if (DEAD_GRANT.has(oauthErrorCode(error) ?? '')) throw new GmailAuthRevokedError(credentials.account);
        throw new Error(`cannot refresh the Gmail access token: ${safeMessage(error)}`);
      }
    },
    invalidate: reset,
  };
}

function oauthErrorCode(error: unknown): string | undefined {
  const data = (error as { response?: { data?: unknown } } | null)?.response?.data;
  if (data !== null && typeof data === 'object' && typeof (data as { error?: unknown }).error === 'string') return (data as { error: string }).error;
  return undefined;
}

/** The status or code only: gaxios messages can quote the request, which carries the refresh token. */
function safeMessage(error: unknown): string {
  const status = (error as { response?: { status?: number } } | null)?.response?.status;
  if (status !== undefined) return `token endpoint answered ${status}${oauthErrorCode(error) ? ` ${oauthErrorCode(error)}` : ''}`;
  return (error as { code?: string } | null)?.code ?? 'network error';
}
