import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { msteamsChannel } from '../../src/channels/msteams.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const APP_ID = '00000000-aaaa-bbbb-cccc-000000000001';
const APP_PASSWORD = 'teams~client~secret';
const CONVERSATION = '19:abc123@thread.tacv2;messageid=1700';
const TOKEN_PATH = '/botframework.com/oauth2/v2.0/token';

interface State {
  issued: number;
  current?: string | undefined;
  rateLimited: number;
  revokeNext: boolean;
}

/** Entra ID client-credentials endpoint plus the Bot Connector activities endpoint, on one server. */
function botFramework(state: State) {
  return (request: Recorded): Answer => {
    if (request.method === 'POST' && request.path === TOKEN_PATH) return token(request, state);
    const match = /^\/teams\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(request.path);
    if (request.method !== 'POST' || match === null) return { status: 404, json: { error: { code: 'NotFound', message: 'Not found' } } };
    if (state.revokeNext) {
      state.revokeNext = false;
      state.current = undefined;
    }
    if (state.current === undefined || request.headers.authorization !== `Bearer ${state.current}`) return { status: 401, json: { message: 'Authorization has been denied for this request.' } };
    if (state.rateLimited > 0) {
      state.rateLimited -= 1;
      return { status: 429, headers: { 'retry-after': '2' }, json: { error: { code: 'TooManyRequests', message: 'Too many requests' } } };
    }
    const body = bodyOf(request);
    if (decodeURIComponent(match[1] ?? '') !== CONVERSATION) return { status: 404, json: { error: { code: 'ConversationNotFound', message: 'Conversation not found.' } } };
    if (body['type'] !== 'message' || typeof body['text'] !== 'string') return { status: 400, json: { error: { code: 'BadArgument', message: 'Activity type is required' } } };
    if (match[2] !== undefined && body['replyToId'] !== decodeURIComponent(match[2])) return { status: 400, json: { error: { code: 'BadArgument', message: 'replyToId does not match' } } };
    return { status: 201, json: { id: `1:${request.url.length}` } };
  };
}

function token(request: Recorded, state: State): Answer {
  const form = new URLSearchParams(request.text);
  const formType = String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded');
  if (!formType || form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'https://api.botframework.com/.default') {
    return { status: 400, json: { error: 'invalid_request', error_description: 'AADSTS900144: The request body must contain the following parameter.' } };
  }
  if (form.get('client_id') !== APP_ID || form.get('client_secret') !== APP_PASSWORD) {
    return { status: 401, json: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' } };
  }
  state.issued += 1;
  state.current = `access-${state.issued}`;
  return { status: 200, json: { token_type: 'Bearer', expires_in: 3600, ext_expires_in: 3600, access_token: state.current } };
}

describe('msteams channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(initial: Partial<State> = {}, options: { now?: () => number; appPassword?: string } = {}) {
    const state: State = { issued: 0, rateLimited: 0, revokeNext: false, ...initial };
    service = await startFakeService(botFramework(state));
    const config = {
      appId: APP_ID,
      appPassword: options.appPassword ?? APP_PASSWORD,
      serviceUrl: `${service.baseUrl}/teams/`,
      tokenUrl: `${service.baseUrl}${TOKEN_PATH}`,
    };
    const deps = options.now === undefined ? testDeps() : testDeps({ now: options.now });
    return { state, service, channel: msteamsChannel.create(config, deps) };
  }

  it('gets a client-credentials token and posts a message activity with it to the conversation', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, CONVERSATION, 'hello team')).toEqual({ status: 'delivered', channel: 'msteams', to: CONVERSATION, parts: 1, attempts: 1 });
    expect(service.requests.map((request) => request.path)).toEqual([TOKEN_PATH, `/teams/v3/conversations/${encodeURIComponent(CONVERSATION)}/activities`]);
    expect(bodyOf(service.requests[1])).toEqual({ type: 'message', text: 'hello team', textFormat: 'plain' });
  });

  it('reuses the cached token until shortly before expires_in, then fetches a new one', async () => {
    let now = 1_000_000;
    const { state, channel } = await setUp({}, { now: () => now });
    await deliverText(channel, CONVERSATION, 'one');
    now += 3000_000;
    await deliverText(channel, CONVERSATION, 'two');
    expect(state.issued).toBe(1);
    now += 400_000;
    expect(await deliverText(channel, CONVERSATION, 'three')).toMatchObject({ status: 'delivered' });
    expect(state.issued).toBe(2);
  });

  it('shares one token request between concurrent sends', async () => {
    const { state, channel } = await setUp();
    const outcomes = await Promise.all([deliverText(channel, CONVERSATION, 'a'), deliverText(channel, CONVERSATION, 'b')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['delivered', 'delivered']);
    expect(state.issued).toBe(1);
  });

  it('drops a token the connector rejects with 401 and retries with a fresh one', async () => {
    const { state, channel } = await setUp({ revokeNext: true });
    const { sleep } = recordingSleep();
    expect(await deliverText(channel, CONVERSATION, 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(state.issued).toBe(2);
  });

  it('waits the Retry-After of a 429', async () => {
    const { channel } = await setUp({ rateLimited: 1 });
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, CONVERSATION, 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([2000]);
  });

  it('splits replies at 7000 characters', async () => {
    const { service, channel } = await setUp();
    const text = longText(30, 50);
    expect(await deliverText(channel, CONVERSATION, text)).toMatchObject({ status: 'delivered' });
    const sent = service.requests.filter((request) => request.path !== TOKEN_PATH).map((request) => String(bodyOf(request)['text']));
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((part) => part.length <= 7000)).toBe(true);
    expect(words(sent.join(' '))).toEqual(words(text));
  });

  it('fails at once on a wrong app password with the Entra error and without the secret', async () => {
    const { channel } = await setUp({}, { appPassword: 'wrong~secret' });
    const outcome = await deliverText(channel, CONVERSATION, 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: 'msteams: Bot Framework token: invalid_client: AADSTS7000215: Invalid client secret provided. (HTTP 401)',
    });
    expect(JSON.stringify(outcome)).not.toContain('secret~');
  });

  it('fails at once when the conversation does not exist', async () => {
    const { channel } = await setUp();
    const outcome = await deliverText(channel, '19:missing@thread.tacv2', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'msteams: ConversationNotFound: Conversation not found. (HTTP 404)' });
  });

  it('replies to an activity: `<conversation>#<activity id>` posts to …/activities/{id} with replyToId', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, `${CONVERSATION}#1:act42`, 'in thread')).toMatchObject({ status: 'delivered' });
    expect(service.requests[1]?.path).toBe(`/teams/v3/conversations/${encodeURIComponent(CONVERSATION)}/activities/${encodeURIComponent('1:act42')}`);
    expect(bodyOf(service.requests[1])).toEqual({ type: 'message', text: 'in thread', textFormat: 'plain', replyToId: '1:act42' });
  });

  it('sends Markdown only with markup "allow", and never for a notify', async () => {
    service = await startFakeService(botFramework({ issued: 0, rateLimited: 0, revokeNext: false }));
    const config = { appId: APP_ID, appPassword: APP_PASSWORD, serviceUrl: `${service.baseUrl}/teams/`, tokenUrl: `${service.baseUrl}${TOKEN_PATH}`, markup: 'allow' as const };
    const channel = msteamsChannel.create(config, testDeps());
    await deliverText(channel, CONVERSATION, '**ok** ![x](https://e.example/p.png)');
    await deliverText(channel, CONVERSATION, '**ok** ![x](https://e.example/p.png)', { untrusted: true });
    const activities = service.requests.filter((request) => request.path !== TOKEN_PATH).map((request) => bodyOf(request));
    expect(activities).toEqual([
      { type: 'message', text: '**ok** ![x](https://e.example/p.png)' },
      { type: 'message', text: '**ok** ![x](https://e.example/p.png)', textFormat: 'plain' },
    ]);
  });
});
