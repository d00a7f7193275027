import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { discordChannel } from '../../src/channels/discord.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const TOKEN = 'MTA5.discord-secret.token';
const CHANNEL_ID = '1098765432101234567';

/** Create Message as Discord checks it: bot auth, a DiscordBot user agent, content ≤ 2000. */
function discordApi(state: { rateLimited: number }) {
  return (request: Recorded): Answer => {
    const match = /^\/api\/v10\/channels\/(\d+)\/messages$/.exec(request.path);
    if (request.method !== 'POST' || match === null) return { status: 404, json: { message: '404: Not Found', code: 0 } };
    if (request.headers.authorization !== `Bot ${TOKEN}`) return { status: 401, json: { message: '401: Unauthorized', code: 0 } };
    if (!String(request.headers['user-agent']).startsWith('DiscordBot (')) return { status: 400, json: { message: 'Bad user agent', code: 0 } };
    if (!String(request.headers['content-type']).startsWith('application/json')) return { status: 400, json: { message: 'Cannot send an empty message', code: 50006 } };
    if (state.rateLimited > 0) {
      state.rateLimited -= 1;
      return { status: 429, headers: { 'retry-after': '2', 'x-ratelimit-scope': 'user' }, json: { message: 'You are being rate limited.', retry_after: 1.5, global: false } };
    }
    if (match[1] !== CHANNEL_ID) return { status: 404, json: { message: 'Unknown Channel', code: 10003 } };
    const content = bodyOf(request)['content'];
    if (typeof content !== 'string' || content.length > 2000) {
      return { status: 400, json: { message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } } };
    }
    return { status: 200, json: { id: '1', channel_id: CHANNEL_ID, content } };
  };
}

describe('discord channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(rateLimited = 0) {
    service = await startFakeService(discordApi({ rateLimited }));
    return { service, channel: discordChannel.create({ token: TOKEN, baseUrl: `${service.baseUrl}/api/v10` }, testDeps()) };
  }

  it('posts content to /channels/{id}/messages as the bot with mentions disabled, @everyone broken in the text too', async () => {
    const { service, channel } = await setUp();
    const outcome = await deliverText(channel, CHANNEL_ID, 'deploy finished @everyone');
    expect(outcome).toEqual({ status: 'delivered', channel: 'discord', to: CHANNEL_ID, parts: 1, attempts: 1 });
    expect(bodyOf(service.requests[0])).toEqual({ content: 'deploy finished @\u200Beveryone', allowed_mentions: { parse: [] }, flags: 4 });
  });

  it('splits a reply longer than 2000 characters into ordered parts', async () => {
    const { service, channel } = await setUp();
    const text = longText(20, 40);
    expect(await deliverText(channel, CHANNEL_ID, text)).toMatchObject({ status: 'delivered' });
    const sent = service.requests.map((request) => String(bodyOf(request)['content']));
    expect(sent.length).toBeGreaterThan(2);
    expect(words(sent.join(' '))).toEqual(words(text));
  });

  it('honours the float retry_after of the 429 body over the rounded header', async () => {
    const { channel } = await setUp(1);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, CHANNEL_ID, 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([1500]);
  });

  it('fails at once on Unknown Channel with the code and message', async () => {
    const { channel } = await setUp();
    const outcome = await deliverText(channel, '1', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'discord: Unknown Channel [code 10003] (HTTP 404)' });
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
  });

  it('shows masked link targets and images as text and suppresses embeds', async () => {
    const { service, channel } = await setUp();
    await deliverText(channel, CHANNEL_ID, '[click](https://evil.example/x) ![i](https://evil.example/p.png) https://a.example');
    expect(bodyOf(service.requests[0])).toEqual({
      content: 'click (`https://evil.example/x`) i (`https://evil.example/p.png`) `https://a.example`',
      allowed_mentions: { parse: [] },
      flags: 4,
    });
  });
});
