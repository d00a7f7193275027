import { generateKeyPairSync, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { githubChannel } from '../../src/channels/github.js';
import { graphqlUrl } from '../../src/channels/github-discussions.js';
import { ConfigError } from '../../src/errors.js';
import { bodyOf, recordingSleep, startFakeService, testDeps, type Answer, type FakeService, type Recorded } from './fake-service.js';

const TOKEN = 'github_pat_11AAAA_secretvalue';
const APP_ID = 123456;
const INSTALLATION = 987;
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const ZWSP = '\u200B';

interface State {
  /** Answers to give before the normal one, in order. */
  queue: Answer[];
  issued: string[];
  comments: string[];
}

function githubError(status: number, message: string, headers: Record<string, string> = {}): Answer {
  return { status, headers, json: { message, documentation_url: 'https://docs.github.com/rest', status: String(status) } };
}

/** The app's JWT as GitHub checks it: RS256 over header.payload with the app's key, iss = app id, not expired. */
function validJwt(authorization: string | undefined): boolean {
  const [header, payload, signature] = (authorization ?? '').replace(/^Bearer /, '').split('.');
  if (header === undefined || payload === undefined || signature === undefined) return false;
  const ok = verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'));
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iss: string; iat: number; exp: number };
  return ok && claims.iss === String(APP_ID) && claims.exp > NOW / 1000 && claims.iat <= NOW / 1000 && claims.exp - claims.iat <= 600;
}

/** GitHub REST as documented: issue comments, the installation lookup and the installation token exchange. */
function githubApi(state: State) {
  return (request: Recorded): Answer => {
    if (request.headers['user-agent'] === undefined) return githubError(403, 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header');
    if (request.method === 'GET' && request.path === '/repos/octo-org/api/installation') {
      return validJwt(request.headers.authorization) ? { status: 200, json: { id: INSTALLATION, app_id: APP_ID } } : githubError(401, 'A JSON web token could not be decoded');
    }
    if (request.method === 'GET' && /^\/repos\/[^/]+\/[^/]+\/installation$/.test(request.path)) return githubError(404, 'Not Found');
    if (request.method === 'POST' && request.path === `/app/installations/${INSTALLATION}/access_tokens`) {
      if (!validJwt(request.headers.authorization)) return githubError(401, 'A JSON web token could not be decoded');
      const token = `ghs_installation${state.issued.length + 1}`;
      state.issued.push(`${token}:${JSON.stringify(bodyOf(request)['repositories'])}`);
      return { status: 201, json: { token, expires_at: new Date(NOW + 3600_000).toISOString(), permissions: { issues: 'write' } } };
    }
    if (request.method === 'POST' && request.path === '/graphql') return graphqlApi(state, request);
    const match = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(request.path);
    if (request.method !== 'POST' || match === null) return githubError(404, 'Not Found');
    const auth = request.headers.authorization ?? '';
    if (auth !== `Bearer ${TOKEN}` && !/^Bearer ghs_installation\d+$/.test(auth)) return githubError(401, 'Bad credentials');
    if (request.headers.accept !== 'application/vnd.github+json') return githubError(415, 'Unsupported media type');
    const next = state.queue.shift();
    if (next !== undefined) return next;
    if (`${match[1]}/${match[2]}` !== 'octo-org/api') return githubError(404, 'Not Found');
    const body = bodyOf(request)['body'];
    if (typeof body !== 'string' || body.length > 65_536) return githubError(422, 'Validation Failed');
    state.comments.push(body);
    return { status: 201, json: { id: state.comments.length, node_id: `IC_${state.comments.length}`, body, html_url: `https://github.com/octo-org/api/issues/${match[3]}#issuecomment-${state.comments.length}` } };
  };
}

/** GitHub GraphQL as documented: `repository.discussion(number)` and `addDiscussionComment` (octo-org/api has discussion 7). */
function graphqlApi(state: State, request: Recorded): Answer {
  const auth = request.headers.authorization ?? '';
  if (auth !== `Bearer ${TOKEN}` && !/^Bearer ghs_installation\d+$/.test(auth)) return githubError(401, 'Bad credentials');
  const { query, variables } = bodyOf(request) as { query?: string; variables?: Record<string, unknown> };
  const next = state.queue.shift();
  if (next !== undefined) return next;
  if (query?.includes('repository(owner: $owner, name: $name) { discussion(number: $number) { id } }') === true) {
    const known = variables?.['owner'] === 'octo-org' && variables['name'] === 'api' && variables['number'] === 7;
    if (!known) {
      const message = `Could not resolve to a Discussion with the number of ${String(variables?.['number'])}.`;
      return { status: 200, json: { data: { repository: { discussion: null } }, errors: [{ type: 'NOT_FOUND', path: ['repository', 'discussion'], message }] } };
    }
    return { status: 200, json: { data: { repository: { discussion: { id: 'D_kwDOdisc7' } } } } };
  }
  if (query?.includes('addDiscussionComment(input: $input) { comment { id } }') === true) {
    const input = variables?.['input'] as { discussionId?: unknown; body?: unknown } | undefined;
    if (input?.discussionId !== 'D_kwDOdisc7' || typeof input.body !== 'string') return { status: 200, json: { data: null, errors: [{ type: 'NOT_FOUND', message: 'Could not resolve to a node' }] } };
    state.comments.push(input.body);
    return { status: 200, json: { data: { addDiscussionComment: { comment: { id: `DC_${state.comments.length}` } } } } };
  }
  return { status: 200, json: { errors: [{ message: 'Parse error' }] } };
}

describe('github channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(config: Record<string, unknown> = { token: TOKEN }, queue: Answer[] = []) {
    const state: State = { queue, issued: [], comments: [] };
    service = await startFakeService(githubApi(state));
    const channel = githubChannel.create({ ...config, baseUrl: service.baseUrl } as never, testDeps({ now: () => NOW }));
    return { state, service, channel };
  }

  it('posts the body to /repos/{owner}/{repo}/issues/{number}/comments with the token and the API version', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, 'octo-org/api#12', 'Looks good.')).toEqual({ status: 'delivered', channel: 'github', to: 'octo-org/api#12', parts: 1, attempts: 1 });
    const request = service.requests[0];
    expect(request?.path).toBe('/repos/octo-org/api/issues/12/comments');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['x-github-api-version']).toBe('2022-11-28');
    expect(bodyOf(request)).toEqual({ body: 'Looks good.' });
  });

  it('answers the comment\'s node id (what its issue_comment webhook carries), and what it would post before posting it', async () => {
    const { channel } = await setUp();
    expect(await channel.send('octo-org/api#12', 'Looks @good.')).toEqual({ id: 'IC_1' });
    expect(channel.posting?.('Octo-Org/api#12', 'Looks @good.')).toEqual({ target: 'Octo-Org/api#12', body: `Looks @${ZWSP}good.` });
    expect(channel.posting?.('octo-org/api#discussion-7', 'x')).toEqual({ target: 'octo-org/api#discussion-7', body: 'x' });
    expect(channel.posting?.('octo-org/..#1', 'x')).toBeUndefined();
  });

  it('comments on a discussion through GraphQL: finds it by number, adds the comment, answers its node id', async () => {
    const { state, service, channel } = await setUp();
    expect(await channel.send('octo-org/api#discussion-7', 'Answered in @docs.')).toEqual({ id: 'DC_1' });
    expect(service.requests.map((request) => request.path)).toEqual(['/graphql', '/graphql']);
    expect(bodyOf(service.requests[0])['variables']).toEqual({ owner: 'octo-org', name: 'api', number: 7 });
    expect(bodyOf(service.requests[1])['variables']).toEqual({ input: { discussionId: 'D_kwDOdisc7', body: `Answered in @${ZWSP}docs.` } });
    expect(service.requests[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(state.comments).toEqual([`Answered in @${ZWSP}docs.`]);
  });

  it('fails a discussion that is not found at once, and retries a GraphQL rate limit', async () => {
    const { channel } = await setUp();
    const missing = await deliverText(channel, 'octo-org/api#discussion-8', 'hi', { sleep: recordingSleep().sleep });
    expect(missing).toMatchObject({ status: 'failed', attempts: 1, reason: 'github: GitHub: discussion #8 of octo-org/api not found, or the credential has no access to its discussions' });
    const limited = await setUp({ token: TOKEN }, [{ status: 200, json: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded' }] } }]);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(limited.channel, 'octo-org/api#discussion-7', 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([30_000]);
  });

  it('finds GraphQL beside the REST API of GitHub Enterprise Server', () => {
    expect(graphqlUrl('https://api.github.com')).toBe('https://api.github.com/graphql');
    expect(graphqlUrl('https://ghe.example.com/api/v3/')).toBe('https://ghe.example.com/api/graphql');
  });

  it('keeps @ visible but neutralises every mention, and shows images and link targets as text', async () => {
    const { service, channel } = await setUp();
    await deliverText(channel, 'octo-org/api#12', 'cc @octocat @octo-org/core ![x](https://evil.example/p.png?d=1) [docs](https://evil.example/)');
    expect(bodyOf(service.requests[0])).toEqual({
      body: `cc @${ZWSP}octocat @${ZWSP}octo-org/core x (\`https://evil.example/p.png?d=1\`) docs (\`https://evil.example/\`)`,
    });
  });

  it('with mentions "allow", an agent reply may mention people; a notify may not', async () => {
    const { service, channel } = await setUp({ token: TOKEN, mentions: 'allow' });
    await deliverText(channel, 'octo-org/api#12', 'cc @octocat');
    await deliverText(channel, 'octo-org/api#12', 'cc @octocat', { untrusted: true });
    expect(service.requests.map((request) => bodyOf(request)['body'])).toEqual(['cc @octocat', `cc @${ZWSP}octocat`]);
  });

  it('splits a 70k reply under 65,536 characters and posts the parts in order', async () => {
    const { state, channel } = await setUp();
    const text = Array.from({ length: 7100 }, (_, index) => `line-${String(index).padStart(4, '0')}`).join('\n');
    expect(text.length).toBeGreaterThan(70_000);
    expect(await deliverText(channel, 'octo-org/api#12', text)).toMatchObject({ status: 'delivered', parts: 2 });
    expect(state.comments.every((comment) => comment.length <= 65_536)).toBe(true);
    expect(state.comments.join('\n')).toBe(text);
  });

  it('waits the Retry-After of a secondary rate limit (403), then posts', async () => {
    const { state, channel } = await setUp({ token: TOKEN }, [githubError(403, 'You have exceeded a secondary rate limit', { 'retry-after': '7' })]);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, 'octo-org/api#12', 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([7000]);
    expect(state.comments).toEqual(['hi']);
  });

  it('waits until X-RateLimit-Reset when the primary limit is used up, and retries a 502', async () => {
    const reset = String(NOW / 1000 + 20);
    const queue = [githubError(403, 'API rate limit exceeded', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }), githubError(502, 'Server Error')];
    const { channel } = await setUp({ token: TOKEN }, queue);
    const { sleep, waits } = recordingSleep();
    // random 0: the jittered backoff's lower half (half of 2 s).
    expect(await deliverText(channel, 'octo-org/api#12', 'hi', { sleep, random: () => 0 })).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(waits).toEqual([20_000, 1000]);
  });

  it('fails at once on a 403, naming the repository and the permission, never the token', async () => {
    const { service, channel } = await setUp({ token: TOKEN }, [githubError(403, 'Resource not accessible by personal access token')]);
    const outcome = await deliverText(channel, 'octo-org/api#12', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
    expect(outcome.status === 'failed' ? outcome.reason : '').toBe(
      'github: GitHub: Resource not accessible by personal access token: the token may not comment on octo-org/api (needs Issues: write, and Pull requests: write for pull requests) (HTTP 403)',
    );
    expect(JSON.stringify(outcome)).not.toContain('secretvalue');
    expect(service.requests).toHaveLength(1);
  });

  it('fails at once on a 404, naming the issue and the repository', async () => {
    const { channel } = await setUp();
    const outcome = await deliverText(channel, 'someone/private#3', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'github: GitHub: someone/private#3 not found, or the token has no access to someone/private (HTTP 404)' });
  });

  it('refuses a `to` that is not owner/repo#number without a request', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, 'octo-org/api', 'hi')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^github: `to` must be owner\/repo#number \(an issue or pull request\) or owner\/repo#discussion-number: a GitHub owner/) });
    expect(service.requests).toHaveLength(0);
  });

  it('as a GitHub App: finds the installation, buys a token limited to the repository, and reuses it until it nears expiry', async () => {
    const { state, service, channel } = await setUp({ app: { appId: APP_ID, privateKey: PRIVATE_PEM } });
    expect(await deliverText(channel, 'octo-org/api#12', 'one')).toMatchObject({ status: 'delivered' });
    expect(await deliverText(channel, 'octo-org/api#13', 'two')).toMatchObject({ status: 'delivered' });
    expect(service.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /repos/octo-org/api/installation',
      `POST /app/installations/${INSTALLATION}/access_tokens`,
      'POST /repos/octo-org/api/issues/12/comments',
      'POST /repos/octo-org/api/issues/13/comments',
    ]);
    expect(state.issued).toEqual(['ghs_installation1:["api"]']);
    expect(service.requests[2]?.headers.authorization).toBe('Bearer ghs_installation1');
  });

  it('as a GitHub App not installed on the repository: a final failure that says so', async () => {
    const { channel } = await setUp({ app: { appId: APP_ID, privateKey: PRIVATE_PEM } });
    const outcome = await deliverText(channel, 'elsewhere/repo#1', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'github: the GitHub App is not installed on elsewhere/repo (HTTP 404)' });
  });

  it('refuses a config with neither or both credentials, and a private key that is not one', () => {
    expect(() => githubChannel.create({}, testDeps())).toThrow(ConfigError);
    expect(() => githubChannel.create({ token: 't', app: { appId: 1, privateKey: PRIVATE_PEM } }, testDeps())).toThrow(ConfigError);
    expect(() => githubChannel.create({ app: { appId: 1, privateKey: 'not a key' } }, testDeps())).toThrow(/RSA private key in PEM/);
  });
});
