import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { slackChannel } from '../../src/channels/slack.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, wholeStep, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const TOKEN = 'xoxb-1111-2222-slacksecret';
const CHANNEL = 'C0123456789';

/** chat.postMessage as Slack answers it: HTTP 200 with ok:false for most errors, 429 + Retry-After for rate limits. */
function slackApi(state: { rateLimited: number; internal: number }) {
  const error = (name: string): Answer => ({ status: 200, json: { ok: false, error: name } });
  return (request: Recorded): Answer => {
    // A response_url answers plain text: `ok`, or the reason (`expired_url`, `used_url`, `no_text`).
    if (request.method === 'POST' && request.path.startsWith('/commands/')) return typeof bodyOf(request)['text'] === 'string' ? { status: 200, text: 'ok' } : { status: 400, text: 'no_text' };
    if (request.method !== 'POST' || request.path !== '/api/chat.postMessage') return { status: 404, text: 'Not Found' };
    if (request.headers.authorization === undefined) return error('not_authed');
    if (request.headers.authorization !== `Bearer ${TOKEN}`) return error('invalid_auth');
    if (request.headers['content-type'] !== 'application/json; charset=utf-8') return error('invalid_charset');
    if (state.rateLimited > 0) {
      state.rateLimited -= 1;
      return { status: 429, headers: { 'retry-after': '7' }, json: { ok: false, error: 'ratelimited' } };
    }
    if (state.internal > 0) {
      state.internal -= 1;
      return error('internal_error');
    }
    const body = bodyOf(request);
    if (body['channel'] !== CHANNEL) return error('channel_not_found');
    const text = body['text'];
    if (typeof text !== 'string' || text === '') return error('no_text');
    if (text.length > 40000) return error('msg_too_long');
    return { status: 200, json: { ok: true, channel: CHANNEL, ts: '1700000000.000100', message: { text } } };
  };
}

describe('slack channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(state = { rateLimited: 0, internal: 0 }) {
    service = await startFakeService(slackApi(state));
    return { service, channel: slackChannel.create({ botToken: TOKEN, baseUrl: `${service.baseUrl}/api/` }, testDeps()) };
  }

  it('posts channel and text with a bearer token and escapes <, > and &', async () => {
    const { service, channel } = await setUp();
    const outcome = await deliverText(channel, CHANNEL, 'ping <!channel> & <https://evil.example|bank>');
    expect(outcome).toEqual({ status: 'delivered', channel: 'slack', to: CHANNEL, parts: 1, attempts: 1 });
    expect(bodyOf(service.requests[0])).toEqual({
      channel: CHANNEL,
      text: 'ping &lt;!channel&gt; &amp; &lt;https://evil.example|bank&gt;',
      unfurl_links: false,
      unfurl_media: false,
    });
  });

  it('splits replies at 4000 characters', async () => {
    const { service, channel } = await setUp();
    const text = longText(20, 50);
    expect(await deliverText(channel, CHANNEL, text)).toMatchObject({ status: 'delivered' });
    const sent = service.requests.map((request) => String(bodyOf(request)['text']));
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((part) => part.length <= 4000)).toBe(true);
    expect(words(sent.join(' '))).toEqual(words(text));
  });

  it('waits the Retry-After of a 429 and retries', async () => {
    const { channel } = await setUp({ rateLimited: 1, internal: 0 });
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, CHANNEL, 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([7000]);
  });

  it('retries internal_error answered as HTTP 200 with backoff', async () => {
    const { channel } = await setUp({ rateLimited: 0, internal: 2 });
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, CHANNEL, 'hi', { sleep, baseDelayMs: 100, random: wholeStep })).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(waits).toEqual([100, 200]);
  });

  it('treats ok:false channel_not_found as a final failure', async () => {
    const { service, channel } = await setUp();
    const outcome = await deliverText(channel, 'C404', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'slack: Slack error: channel_not_found' });
    expect(service.requests).toHaveLength(1);
  });

  it('reports a wrong token as invalid_auth without echoing it', async () => {
    service = await startFakeService(slackApi({ rateLimited: 0, internal: 0 }));
    const channel = slackChannel.create({ botToken: 'xoxb-wrong', baseUrl: `${service.baseUrl}/api` }, testDeps());
    const outcome = await deliverText(channel, CHANNEL, 'hi');
    expect(outcome).toMatchObject({ status: 'failed', reason: 'slack: Slack error: invalid_auth' });
    expect(JSON.stringify(outcome)).not.toContain('xoxb');
  });

  it('answers in a thread: `<channel>#<ts>` becomes thread_ts', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, `${CHANNEL}#1700000000.000100`, 'in thread')).toMatchObject({ status: 'delivered' });
    expect(bodyOf(service.requests[0])).toEqual({ channel: CHANNEL, text: 'in thread', unfurl_links: false, unfurl_media: false, thread_ts: '1700000000.000100' });
  });

  it('answers a slash command through its response_url on the configured host, without the bot token', async () => {
    const { service, channel } = await setUp();
    const responseUrl = `${service.baseUrl}/commands/T1/123/abcSecret`;
    expect(await deliverText(channel, responseUrl, 'done <!here>')).toMatchObject({ status: 'delivered', to: responseUrl });
    expect(service.requests[0]?.path).toBe('/commands/T1/123/abcSecret');
    expect(service.requests[0]?.headers.authorization).toBeUndefined();
    expect(bodyOf(service.requests[0])).toEqual({ text: 'done &lt;!here&gt;', unfurl_links: false, unfurl_media: false });
  });

  it('never calls a response_url on another host', async () => {
    const { service, channel } = await setUp();
    for (const url of ['https://attacker.example/commands/x', 'http://hooks.slack.com/commands/x', 'https://hooks.slack.com.attacker.example/x']) {
      const outcome = await deliverText(channel, url, 'x');
      expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
      expect(outcome.status === 'failed' ? outcome.reason : '').toContain('must be on https://hooks.slack.com');
    }
    expect(service.requests).toHaveLength(0);
  });

  it('with markup "allow", an agent reply is sent as written; a notify is escaped anyway', async () => {
    service = await startFakeService(slackApi({ rateLimited: 0, internal: 0 }));
    const channel = slackChannel.create({ botToken: TOKEN, baseUrl: `${service.baseUrl}/api/`, markup: 'allow' }, testDeps());
    await deliverText(channel, CHANNEL, 'see <https://docs.example|docs>');
    await deliverText(channel, CHANNEL, 'ping <!channel>', { untrusted: true });
    expect(service.requests.map((request) => bodyOf(request))).toEqual([
      { channel: CHANNEL, text: 'see <https://docs.example|docs>' },
      { channel: CHANNEL, text: 'ping &lt;!channel&gt;', unfurl_links: false, unfurl_media: false },
    ]);
  });
});
