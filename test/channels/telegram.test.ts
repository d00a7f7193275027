import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { telegramChannel } from '../../src/channels/telegram.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const TOKEN = '123456:AAE-secret_token';
const CHAT = '-1001234567890';

/** What the Bot API checks for sendMessage, answered in its { ok, error_code, description, parameters } shape. */
function botApi(state: { rateLimited: number; migrated?: boolean }) {
  const fail = (code: number, description: string, parameters?: object): Answer => ({ status: code, json: { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) } });
  return (request: Recorded): Answer => {
    const match = /^\/bot([^/]+)\/sendMessage$/.exec(request.path);
    if (request.method !== 'POST' || match === null) return fail(404, 'Not Found');
    if (match[1] !== TOKEN) return fail(401, 'Unauthorized');
    if (!String(request.headers['content-type']).startsWith('application/json')) return fail(400, 'Bad Request: message text is empty');
    const body = bodyOf(request);
    if (state.rateLimited > 0) {
      state.rateLimited -= 1;
      return fail(429, 'Too Many Requests: retry after 3', { retry_after: 3 });
    }
    if (state.migrated === true) return fail(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: -1009876 });
    if (body['chat_id'] !== CHAT) return fail(400, 'Bad Request: chat not found');
    const text = body['text'];
    if (typeof text !== 'string' || text.trim() === '') return fail(400, 'Bad Request: message text is empty');
    if (text.length > 4096) return fail(400, 'Bad Request: message is too long');
    return { status: 200, json: { ok: true, result: { message_id: request.url.length, chat: { id: Number(CHAT) }, text } } };
  };
}

describe('telegram channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(state: { rateLimited: number; migrated?: boolean } = { rateLimited: 0 }) {
    service = await startFakeService(botApi(state));
    return { service, channel: telegramChannel.create({ botToken: TOKEN, baseUrl: service.baseUrl }, testDeps()) };
  }

  it('posts chat_id and text as JSON to /bot<token>/sendMessage without a parse mode', async () => {
    const { service, channel } = await setUp();
    const outcome = await deliverText(channel, CHAT, 'Hook gmail: 2 new mails');
    expect(outcome).toEqual({ status: 'delivered', channel: 'telegram', to: CHAT, parts: 1, attempts: 1 });
    expect(service.requests[0]?.method).toBe('POST');
    expect(bodyOf(service.requests[0])).toEqual({ chat_id: CHAT, text: 'Hook gmail: 2 new mails', link_preview_options: { is_disabled: true } });
  });

  it('splits a reply longer than 4096 characters into ordered parts the Bot API accepts', async () => {
    const { service, channel } = await setUp();
    const text = longText(60, 40);
    const outcome = await deliverText(channel, CHAT, text);
    expect(outcome.status).toBe('delivered');
    const sent = service.requests.map((request) => String(bodyOf(request)['text']));
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((part) => part.length <= 4096)).toBe(true);
    expect(words(sent.join('\n'))).toEqual(words(text));
  });

  it('waits the retry_after of a 429 and then delivers', async () => {
    const { channel } = await setUp({ rateLimited: 1 });
    const { sleep, waits } = recordingSleep();
    const outcome = await deliverText(channel, CHAT, 'hello', { sleep });
    expect(outcome).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([3000]);
  });

  it('fails at once on a 400 with the description and never the token', async () => {
    const { service, channel } = await setUp();
    const outcome = await deliverText(channel, '42', 'hello', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
    expect(outcome.status === 'failed' ? outcome.reason : '').toBe('telegram: Bad Request: chat not found (HTTP 400)');
    expect(JSON.stringify(outcome)).not.toContain('AAE-secret');
    expect(service.requests).toHaveLength(1);
  });

  it('names the new supergroup id when the group was migrated', async () => {
    const { channel } = await setUp({ rateLimited: 0, migrated: true });
    const outcome = await deliverText(channel, CHAT, 'hello');
    expect(outcome.status === 'failed' ? outcome.reason : '').toContain('supergroup -1009876');
  });

  it('reports a wrong bot token as the final 401 Unauthorized', async () => {
    service = await startFakeService(botApi({ rateLimited: 0 }));
    const channel = telegramChannel.create({ botToken: '999:wrong', baseUrl: service.baseUrl }, testDeps());
    const outcome = await deliverText(channel, CHAT, 'hello');
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'telegram: Unauthorized (HTTP 401)' });
  });

  it('answers in a forum topic: `<chat>#<topic>` becomes message_thread_id', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, `${CHAT}#42`, 'in the topic')).toMatchObject({ status: 'delivered', to: `${CHAT}#42` });
    expect(bodyOf(service.requests[0])).toEqual({ chat_id: CHAT, text: 'in the topic', message_thread_id: 42, link_preview_options: { is_disabled: true } });
  });

  it('with threads "reply", `<chat>#<message>` answers that message through reply_parameters', async () => {
    service = await startFakeService(botApi({ rateLimited: 0 }));
    const channel = telegramChannel.create({ botToken: TOKEN, baseUrl: service.baseUrl, threads: 'reply' }, testDeps());
    expect(await deliverText(channel, `${CHAT}#1234`, 'answer')).toMatchObject({ status: 'delivered' });
    expect(bodyOf(service.requests[0])).toEqual({
      chat_id: CHAT,
      text: 'answer',
      reply_parameters: { message_id: 1234, allow_sending_without_reply: true },
      link_preview_options: { is_disabled: true },
    });
  });

  it('refuses a thread that is not a number without calling the Bot API', async () => {
    const { service, channel } = await setUp();
    const outcome = await deliverText(channel, `${CHAT}#general`, 'x');
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'telegram: the thread after "#" must be a forum topic id' });
    expect(service.requests).toHaveLength(0);
  });

  it('with markup "allow", an agent reply may show link previews, but a notify (untrusted) never does', async () => {
    service = await startFakeService(botApi({ rateLimited: 0 }));
    const channel = telegramChannel.create({ botToken: TOKEN, baseUrl: service.baseUrl, markup: 'allow' }, testDeps());
    await deliverText(channel, CHAT, 'see https://example.com');
    await deliverText(channel, CHAT, 'see https://example.com', { untrusted: true });
    expect(service.requests.map((request) => bodyOf(request))).toEqual([
      { chat_id: CHAT, text: 'see https://example.com' },
      { chat_id: CHAT, text: 'see https://example.com', link_preview_options: { is_disabled: true } },
    ]);
  });
});
