import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';

const TRANSFORMS = fileURLToPath(new URL('../fixtures/transforms/root', import.meta.url));

/** Headers whose values are credentials of the sender's own (an API gateway's key, a proxy's access token…). */
const SECRETS: Record<string, string> = {
  'x-api-key': 'key-value-1',
  'x-forwarded-access-token': 'access-value-2',
  'x-amz-security-token': 'aws-value-3',
  'x-csrf-token': 'csrf-value-4',
  cookie: 'sid=cookie-value-5',
  'x-client-secret': 'secret-value-6',
  // What an identity-aware proxy or API gateway in front of Hookgate adds to every request it lets
  // through: the signed-in user's token (Cloudflare Access, Google IAP, Pomerium, AWS ALB) or the
  // caller's key (Azure API Management, Azure Functions), as x-forwarded-access-token is oauth2-proxy's.
  'cf-access-jwt-assertion': 'cloudflare-jwt-7',
  'x-goog-iap-jwt-assertion': 'iap-jwt-8',
  'x-pomerium-jwt-assertion': 'pomerium-jwt-9',
  'x-amzn-oidc-data': 'alb-jwt-10',
  'ocp-apim-subscription-key': 'apim-key-11',
  'x-functions-key': 'functions-key-12',
};

/**
 * A template (`{{json headers}}`) or a transform could forward whatever the request carried to a chat
 * or a model. Headers that look like credentials are kept from both, as the console redacts them,
 * unless a mapping names them in `allowSecretHeaders`; the request's own credentials never pass.
 */
describe('secret-looking headers and the mappings that render them', () => {
  let svc: TestService;
  beforeAll(async () => {
    const wake = { action: 'wake', wakeMode: 'next-heartbeat', textTemplate: 'rendered {{json headers}}' };
    svc = await startTestService({
      hooks: {
        transformsDir: TRANSFORMS,
        mappings: [
          { id: 'plain', match: { path: 'plain' }, ...wake },
          { id: 'opted-in', match: { path: 'opted-in' }, ...wake, allowSecretHeaders: ['X-Api-Key'] },
          { id: 'transformed', match: { path: 'transformed' }, action: 'wake', transform: { module: 'header-echo.js' } },
        ],
      },
    });
  });
  afterAll(async () => {
    await svc.close();
  });

  const textOf = async (path: string): Promise<string> => {
    const response = await post(`${svc.hooksUrl}/${path}`, { n: 1 }, { ...SECRETS, 'x-github-event': 'push', 'x-request-id': 'req-7' });
    expect(response.status).toBe(200);
    const row = svc.db.prepare('SELECT text FROM events ORDER BY id DESC LIMIT 1').get() as { text: string };
    return row.text;
  };

  it.each(['plain', 'transformed'])('%s: keeps every credential-looking header out, and the rest in', async (path) => {
    const text = await textOf(path);
    for (const value of Object.values(SECRETS)) expect(text).not.toContain(value);
    expect(text).toContain('"x-github-event":"push"');
    expect(text).toContain('"x-request-id":"req-7"');
  });

  it('passes the headers a mapping opts into, and only those; never the hook token', async () => {
    const text = await textOf('opted-in');
    expect(text).toContain('"x-api-key":"key-value-1"');
    for (const [name, value] of Object.entries(SECRETS)) if (name !== 'x-api-key') expect(text).not.toContain(value);
    expect(text).not.toMatch(/authorization|test-hook-token/i);
  });
});

/** Query parameters whose values are credentials (`?api_key=`, an OAuth `access_token`…): held back like such headers. */
const SECRET_QUERY: Record<string, string> = { api_key: 'query-key-1', access_token: 'query-access-2', client_secret: 'query-secret-3', session: 'query-session-4' };

describe('secret-looking query parameters and the mappings that render them', () => {
  let svc: TestService;
  beforeAll(async () => {
    const wake = { action: 'wake', wakeMode: 'next-heartbeat', textTemplate: 'rendered {{json query}}' };
    svc = await startTestService({
      hooks: {
        transformsDir: TRANSFORMS,
        mappings: [
          { id: 'plain', match: { path: 'plain' }, ...wake },
          { id: 'opted-in', match: { path: 'opted-in' }, ...wake, allowSecretQuery: ['api_key'] },
          { id: 'transformed', match: { path: 'transformed' }, action: 'wake', transform: { module: 'query-echo.js' } },
        ],
      },
    });
  });
  afterAll(async () => {
    await svc.close();
  });

  const textOf = async (path: string): Promise<string> => {
    // A `token` parameter besides the Authorization header: not the credential used, still never shown.
    const query = new URLSearchParams({ ...SECRET_QUERY, page: '2', token: 'query-token-5' });
    const response = await post(`${svc.hooksUrl}/${path}?${query.toString()}`, { n: 1 });
    expect(response.status).toBe(200);
    const row = svc.db.prepare('SELECT text FROM events ORDER BY id DESC LIMIT 1').get() as { text: string };
    return row.text;
  };

  it.each(['plain', 'transformed'])('%s: keeps every credential-looking parameter out of the query and the URL, and the rest in', async (path) => {
    const text = await textOf(path);
    for (const value of [...Object.values(SECRET_QUERY), 'query-token-5']) expect(text).not.toContain(value);
    expect(text).toContain('"page":"2"');
  });

  it('passes the parameters a mapping opts into, and only those; never the token parameter', async () => {
    const text = await textOf('opted-in');
    expect(text).toContain('"api_key":"query-key-1"');
    for (const [name, value] of Object.entries(SECRET_QUERY)) if (name !== 'api_key') expect(text).not.toContain(value);
    expect(text).not.toContain('query-token-5');
  });
});
