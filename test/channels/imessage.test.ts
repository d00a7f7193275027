import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { imessageChannel, toChatGuid } from '../../src/channels/imessage.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, wholeStep, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const PASSWORD = 'blue bubbles&secret';
const CHAT = 'iMessage;-;+4915112345678';

function bbError(status: number, message: string, type: string, error: string): Answer {
  return { status, json: { status, message, error: { type, message: error } } };
}

/** BlueBubbles POST /api/v1/message/text: password in the query, { status, message, data } answers. */
function blueBubbles(state: { sendErrors: number; privateApi: boolean }) {
  return (request: Recorded): Answer => {
    if (request.method !== 'POST' || request.path !== '/api/v1/message/text') return bbError(404, 'Not Found', 'Server Error', 'Route not found');
    if (request.query.get('password') !== PASSWORD) return bbError(401, 'You are not authorized to access this resource', 'Authentication Error', 'Unauthorized');
    const body = bodyOf(request);
    if (typeof body['chatGuid'] !== 'string' || body['chatGuid'] === '') return bbError(400, 'Bad Request', 'Validation Error', 'Chat GUID not provided!');
    if (typeof body['tempGuid'] !== 'string' || body['tempGuid'] === '') return bbError(400, 'Bad Request', 'Validation Error', 'Temporary GUID not provided!');
    if (typeof body['message'] !== 'string' || body['message'] === '') return bbError(400, 'Bad Request', 'Validation Error', 'Message not provided!');
    if (body['method'] === 'private-api' && !state.privateApi) return bbError(400, 'Bad Request', 'Validation Error', 'iMessage Private API is not enabled!');
    if (state.sendErrors > 0) {
      state.sendErrors -= 1;
      return bbError(500, 'Message Send Error', 'iMessage Error', 'Failed to send message! See attached message error code.');
    }
    return { status: 200, json: { status: 200, message: 'Message sent!', data: { guid: 'p:0/ABC', tempGuid: body['tempGuid'], text: body['message'] } } };
  };
}

describe('imessage channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(state = { sendErrors: 0, privateApi: false }, method?: 'apple-script' | 'private-api') {
    service = await startFakeService(blueBubbles(state));
    const config = { baseUrl: service.baseUrl, password: PASSWORD, ...(method === undefined ? {} : { method }) };
    return { service, channel: imessageChannel.create(config, testDeps()) };
  }

  it('sends chatGuid, a fresh tempGuid, the message and apple-script with the password in the query', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, CHAT, 'hi')).toMatchObject({ status: 'delivered', channel: 'imessage', attempts: 1 });
    await deliverText(channel, CHAT, 'again');
    const [first, second] = service.requests.map((request) => bodyOf(request));
    expect(first).toMatchObject({ chatGuid: CHAT, message: 'hi', method: 'apple-script' });
    expect(first?.['tempGuid']).not.toEqual(second?.['tempGuid']);
  });

  it('turns a bare phone number or e-mail into the guid of its direct chat', async () => {
    const { service, channel } = await setUp();
    await deliverText(channel, '+4915112345678', 'hi');
    expect(bodyOf(service.requests[0])['chatGuid']).toBe(CHAT);
    expect(toChatGuid('me@example.com')).toBe('iMessage;-;me@example.com');
    expect(toChatGuid('iMessage;+;chat123456')).toBe('iMessage;+;chat123456');
  });

  it('splits replies at 8000 characters', async () => {
    const { service, channel } = await setUp();
    const text = longText(30, 60);
    expect(await deliverText(channel, CHAT, text)).toMatchObject({ status: 'delivered' });
    const sent = service.requests.map((request) => String(bodyOf(request)['message']));
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((part) => part.length <= 8000)).toBe(true);
    expect(words(sent.join(' '))).toEqual(words(text));
  });

  it('retries a 500 Message Send Error with backoff', async () => {
    const { channel } = await setUp({ sendErrors: 1, privateApi: false });
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, CHAT, 'hi', { sleep, random: wholeStep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([1000]);
  });

  it('fails at once when private-api is configured but not enabled on the server', async () => {
    const { channel } = await setUp({ sendErrors: 0, privateApi: false }, 'private-api');
    const outcome = await deliverText(channel, CHAT, 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'imessage: Bad Request: iMessage Private API is not enabled! (HTTP 400)' });
  });

  it('reports a wrong password as 401 without the password or the URL', async () => {
    service = await startFakeService(blueBubbles({ sendErrors: 0, privateApi: false }));
    const channel = imessageChannel.create({ baseUrl: service.baseUrl, password: 'guess-secret' }, testDeps());
    const outcome = await deliverText(channel, CHAT, 'hi');
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
    expect(JSON.stringify(outcome)).not.toMatch(/guess-secret|127\.0\.0\.1/);
  });
});
