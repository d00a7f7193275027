import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { detail, field, httpFailure, joinUrl, pathSegment, post } from './http.js';
import { DeliveryError } from './types.js';

/** GitHub accepts app JWTs of at most 10 minutes; `iat` is set back for clock drift, as GitHub advises. */
const JWT_LIFETIME_S = 540;
const CLOCK_DRIFT_S = 60;
/** An installation token lives an hour; it is renewed this long before it expires. */
const REFRESH_MARGIN_MS = 5 * 60_000;

interface GithubAppConfig {
  appId: string | number;
  privateKey: string;
  installationId?: number | undefined;
}

export interface AppTokenOptions {
  fetch: typeof globalThis.fetch;
  baseUrl: string;
  headers: Record<string, string>;
  app: GithubAppConfig;
  now: () => number;
}

/** Installation tokens of a GitHub App, each limited to one repository and cached until shortly before it expires. */
export interface AppTokens {
  tokenFor(owner: string, repo: string, signal?: AbortSignal): Promise<string>;
  /** Forget a repository's token, e.g. after GitHub answered 401 with it. */
  invalidate(owner: string, repo: string): void;
}

export function createAppTokens(options: AppTokenOptions): AppTokens {
  const key = readPrivateKey(options.app.privateKey);
  const cached = new Map<string, { token: string; refreshAt: number }>();
  const pending = new Map<string, Promise<string>>();

  async function exchange(owner: string, repo: string, signal: AbortSignal | undefined): Promise<string> {
    const headers = { ...options.headers, authorization: `Bearer ${appJwt(options.app.appId, key, options.now())}` };
    const installation = options.app.installationId ?? (await findInstallation(options, headers, owner, repo, signal));
    const url = joinUrl(options.baseUrl, `app/installations/${installation}/access_tokens`);
    // Limited to the one repository the comment goes to: a leaked token reaches nothing else.
    const reply = await post(options.fetch, url, { headers, json: { repositories: [repo] }, signal });
    const token = field(reply.json, 'token');
    const expiresAt = Date.parse(String(field(reply.json, 'expires_at')));
    if (reply.status !== 201 || typeof token !== 'string' || token === '' || Number.isNaN(expiresAt)) {
      throw httpFailure(reply, `GitHub App installation token for ${owner}/${repo}: ${detail(field(reply.json, 'message'), 'refused')}`);
    }
    cached.set(`${owner}/${repo}`, { token, refreshAt: expiresAt - REFRESH_MARGIN_MS });
    return token;
  }

  return {
    async tokenFor(owner, repo, signal) {
      const id = `${owner}/${repo}`;
      const hit = cached.get(id);
      if (hit !== undefined && options.now() < hit.refreshAt) return hit.token;
      let request = pending.get(id);
      if (request === undefined) {
        request = exchange(owner, repo, signal).finally(() => pending.delete(id));
        pending.set(id, request);
      }
      return request;
    },
    invalidate(owner, repo) {
      cached.delete(`${owner}/${repo}`);
    },
  };
}

/** GET /repos/{owner}/{repo}/installation: which installation of the app covers the repository. */
async function findInstallation(options: AppTokenOptions, headers: Record<string, string>, owner: string, repo: string, signal: AbortSignal | undefined): Promise<number> {
  const url = joinUrl(options.baseUrl, `repos/${pathSegment(owner)}/${pathSegment(repo)}/installation`);
  const reply = await post(options.fetch, url, { method: 'GET', headers, signal });
  const id = field(reply.json, 'id');
  if (reply.status === 200 && typeof id === 'number') return id;
  if (reply.status === 404) throw new DeliveryError(`the GitHub App is not installed on ${owner}/${repo} (HTTP 404)`, { retryable: false, status: 404 });
  throw httpFailure(reply, `GitHub App installation of ${owner}/${repo}: ${detail(field(reply.json, 'message'), 'refused')}`);
}

/** The app's own RS256 JWT (iss = app id), which only serves to obtain installation tokens. */
function appJwt(appId: string | number, key: KeyObject, now: number): string {
  const seconds = Math.floor(now / 1000);
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({ iat: seconds - CLOCK_DRIFT_S, exp: seconds + JWT_LIFETIME_S, iss: String(appId) })}`;
  return `${unsigned}.${sign('sha256', Buffer.from(unsigned), key).toString('base64url')}`;
}

/** PKCS#1 (what GitHub hands out) or PKCS#8 PEM; `\n` escapes from an environment variable are accepted. */
function readPrivateKey(pem: string): KeyObject {
  try {
    const key = createPrivateKey(pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem);
    if (key.asymmetricKeyType === 'rsa') return key;
  } catch {
    // reported below without the key's text
  }
  throw new ConfigError([{ path: '/channels/github/app/privateKey', message: 'must be the GitHub App\'s RSA private key in PEM form (-----BEGIN RSA PRIVATE KEY-----…)' }]);
}
