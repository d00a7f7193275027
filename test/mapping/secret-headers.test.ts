import { describe, expect, it } from 'vitest';
import { redactHeaders } from '../../src/console/redact.js';
import { ConfigError } from '../../src/errors.js';
import { sanitizeHeaders } from '../../src/mapping/context.js';
import { schemeConfig } from '../helpers/signature-fixtures.js';
import { actionsOf, engineWith, fakeTransforms, request } from './support.js';

/** Names from real senders and gateways, secret or not. */
const NAMES = [
  'authorization', 'proxy-authorization', 'cookie', 'x-hookgate-token', 'x-openclaw-token',
  'x-api-key', 'api_key', 'x-goog-api-key', 'x-forwarded-access-token', 'x-amz-security-token', 'x-csrf-token', 'x-client-secret',
  'x-session-id', 'x-auth', 'x-auth-key', 'x-private-note', 'x-hub-signature-256', 'x-credential-id', 'x-password',
  'cf-access-jwt-assertion', 'x-goog-iap-jwt-assertion', 'x-jwt-assertion', 'x-amzn-oidc-data', 'ocp-apim-subscription-key', 'x-functions-key',
  'x-github-event', 'x-github-delivery', 'x-request-id', 'user-agent', 'content-type', 'x-shopify-topic', 'idempotency-key', 'x-author',
];

describe('one list of secret header names for the console and the templates', () => {
  it('hides from templates exactly the headers the console redacts', () => {
    const headers = Object.fromEntries(NAMES.map((name) => [name, `value-of-${name}`]));
    const redacted = redactHeaders(headers, new Set());
    const { visible } = sanitizeHeaders(headers, new Set());
    const hiddenByConsole = NAMES.filter((name) => redacted[name] === '[redacted]');
    expect(NAMES.filter((name) => visible[name] === undefined)).toEqual(hiddenByConsole);
    expect(hiddenByConsole).toEqual(NAMES.slice(0, NAMES.indexOf('x-github-event')));
  });
});

describe('allowSecretHeaders', () => {
  const headers = { 'x-api-key': 'k1', 'x-forwarded-access-token': 'k2', authorization: 'Bearer hook', 'x-github-event': 'push' };

  it('shows a listed header to the templates, a transform and the filter of that mapping only', async () => {
    const transforms = fakeTransforms(() => ({ kind: 'unchanged' as const }));
    const engine = await engineWith({
      transforms: transforms.port,
      mappings: [
        { id: 'listed', match: { path: 'p', source: 'a' }, action: 'wake', textTemplate: '{{json headers}}', allowSecretHeaders: ['X-API-Key'], filter: { field: 'headers.x-api-key', equals: 'k1' }, transform: { module: 't.js' } },
        { id: 'other', match: { path: 'p', source: 'b' }, action: 'wake', textTemplate: '{{json headers}}' },
      ],
    });
    const listed = (await actionsOf(engine, request('p', { source: 'a' }, { headers }))).actions;
    expect(listed.map((action) => ('text' in action ? action.text : ''))).toEqual(['{"x-github-event":"push","x-api-key":"k1"}']);
    expect(transforms.inputs.map((input) => input.headers)).toEqual([{ 'x-github-event': 'push', 'x-api-key': 'k1' }]);
    const other = (await actionsOf(engine, request('p', { source: 'b' }, { headers }))).actions;
    expect(other.map((action) => ('text' in action ? action.text : ''))).toEqual(['{"x-github-event":"push"}']);
  });

  it('refuses the request\'s own credentials and signature headers at load, and warns about a name that is never withheld', async () => {
    const error = await engineWith({
      mappings: [
        { id: 'm', action: 'wake', textTemplate: 'x', allowSecretHeaders: ['Authorization', 'x-hub-signature-256', 'x-custom-mac', 'x-api-key'], signature: schemeConfig('hmac', { secret: 's' }, { header: 'X-Custom-Mac' }) },
      ],
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path)).toEqual(['/hooks/mappings/0/allowSecretHeaders/0', '/hooks/mappings/0/allowSecretHeaders/1', '/hooks/mappings/0/allowSecretHeaders/2']);
    const engine = await engineWith({ mappings: [{ id: 'w', action: 'wake', textTemplate: 'x', allowSecretHeaders: ['x-github-event'] }] });
    expect(engine.warnings).toEqual([expect.stringContaining('"x-github-event" does not look like a secret')]);
  });
});

describe('allowSecretQuery', () => {
  const query = { api_key: 'q1', access_token: 'q2', token: 'hook', page: '2' };

  it('shows a listed parameter to the templates, a transform (query and url) and the filter of that mapping only', async () => {
    const transforms = fakeTransforms(() => ({ kind: 'unchanged' as const }));
    const engine = await engineWith({
      transforms: transforms.port,
      mappings: [
        { id: 'listed', match: { path: 'p', source: 'a' }, action: 'wake', textTemplate: '{{json query}}', allowSecretQuery: ['api_key'], filter: { field: 'query.api_key', equals: 'q1' }, transform: { module: 't.js' } },
        { id: 'other', match: { path: 'p', source: 'b' }, action: 'wake', textTemplate: '{{json query}}' },
      ],
    });
    const listed = (await actionsOf(engine, request('p', { source: 'a' }, { query }))).actions;
    expect(listed.map((action) => ('text' in action ? action.text : ''))).toEqual(['{"page":"2","api_key":"q1"}']);
    expect(transforms.inputs.map((input) => [input.query, input.url])).toEqual([[{ page: '2', api_key: 'q1' }, '/hooks/p?page=2&api_key=q1']]);
    const other = (await actionsOf(engine, request('p', { source: 'b' }, { query }))).actions;
    expect(other.map((action) => ('text' in action ? action.text : ''))).toEqual(['{"page":"2"}']);
  });

  it('refuses the token parameter at load, and warns about a name that is never withheld', async () => {
    const error = await engineWith({ mappings: [{ id: 'm', action: 'wake', textTemplate: 'x', allowSecretQuery: ['token', 'api_key'] }] }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path)).toEqual(['/hooks/mappings/0/allowSecretQuery/0']);
    const engine = await engineWith({ mappings: [{ id: 'w', action: 'wake', textTemplate: 'x', allowSecretQuery: ['page'] }] });
    expect(engine.warnings).toEqual([expect.stringContaining('"page" does not look like a secret')]);
  });
});
