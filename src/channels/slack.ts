import Type from 'typebox';
import { defineChannel } from './define.js';
import { parseRetryAfterMs } from '../retry.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient, type HttpReply } from './http.js';
import { allowed, MarkupSchema, type SendOptions } from './markup.js';
import { splitThread } from './threads.js';
import { DeliveryError, type PostedMessage } from './types.js';

const DEFAULT_BASE_URL = 'https://slack.com/api';
/** The only host a `response_url` may name, besides the configured baseUrl's (a proxy, a test double). */
const RESPONSE_URL_HOST = 'hooks.slack.com';
/**
 * Slack truncates `text` beyond 40,000 characters but asks clients to keep messages to 4,000,
 * and long messages are hard to read in a channel; 4,000 also leaves room for the escaping below.
 */
const MAX_CHARS = 4000;
/** Slack errors (HTTP 200, ok:false) that are the service's trouble rather than the request's. */
const RETRYABLE_ERRORS = new Set(['ratelimited', 'rate_limited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/** Slack Web API: https://docs.slack.dev/reference/methods/chat.postMessage */
export const slackChannel = defineChannel({
  name: 'slack',
  summary:
    'Slack through the Web API (chat.postMessage) with a bot token. `to` is a channel id (C…), or a user id for a DM; `C…#<thread_ts>` answers in a thread; ' +
    'a slash command\'s or interaction\'s `response_url` answers through it.',
  configSchema: Type.Object(
    {
      botToken: Type.String({ minLength: 1, description: 'Bot User OAuth Token (xoxb-…) with the chat:write scope. Use ${SLACK_BOT_TOKEN}; never logged.' }),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `Web API base URL (default ${DEFAULT_BASE_URL}). Its host is also allowed for \`response_url\` recipients.` })),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const url = joinUrl(config.baseUrl ?? DEFAULT_BASE_URL, 'chat.postMessage');
    const headers = { authorization: `Bearer ${config.botToken}` };
    const baseOrigin = new URL(config.baseUrl ?? DEFAULT_BASE_URL).origin;
    return {
      name: 'slack',
      maxMessageChars: MAX_CHARS,
      async send(to, text, signal, options?: SendOptions): Promise<PostedMessage | undefined> {
        const message = messageFields(text, allowed(config.markup, options));
        if (isUrl(to)) {
          const reply = await post(deps.fetch, responseUrl(to.trim(), baseOrigin), { json: message, signal });
          if (reply.status === 200) return undefined;
          throw httpFailure(reply, `Slack refused the response_url message: ${detail(reply.text, 'no reason given')}`);
        }
        const { recipient, thread } = splitThread(to);
        const channel = requireRecipient(recipient, 'a Slack channel id');
        const json = { channel, ...message, ...(thread === undefined ? {} : { thread_ts: thread }) };
        return postedMessage(checkAnswer(await post(deps.fetch, url, { headers, json, signal })));
      },
      // What a message event of this post carries: its conversation and text (a response_url's answer sends no event).
      posting(to, text, options?: SendOptions) {
        if (isUrl(to)) return undefined;
        const { recipient } = splitThread(to);
        return recipient === '' ? undefined : { target: recipient, body: messageFields(text, allowed(config.markup, options))['text'] as string };
      },
    };
  },
});

function isUrl(to: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(to.trim());
}

/** `<channel>:<ts>`: how message events name the message chat.postMessage answered (`event.channel`, `event.ts`). */
function postedMessage(reply: HttpReply): PostedMessage | undefined {
  const channel = field(reply.json, 'channel');
  const ts = field(reply.json, 'ts');
  return typeof channel === 'string' && typeof ts === 'string' && channel !== '' && ts !== '' ? { id: `${channel}:${ts}` } : undefined;
}

function checkAnswer(reply: HttpReply): HttpReply {
  if (reply.status !== 200) throw httpFailure(reply, detail(field(reply.json, 'error'), 'Slack refused the message'));
  if (field(reply.json, 'ok') === true) return reply;
  // Slack reports most failures as HTTP 200 with ok:false and a machine-readable error.
  const error = detail(field(reply.json, 'error'), 'unknown_error');
  throw new DeliveryError(`Slack error: ${error}`, {
    retryable: RETRYABLE_ERRORS.has(error),
    retryAfterMs: parseRetryAfterMs(reply.headers.get('retry-after')),
    status: reply.status,
  });
}

/**
 * Neutral: `&`, `<` and `>` escaped as Slack asks, so `<!channel>` or `<https://evil|label>` in a
 * reply that quotes webhook text is shown literally; and no unfurls, which Slack would fetch from a
 * URL the text chose. Allowed: the text as the agent wrote it, unfurled as Slack likes.
 */
function messageFields(text: string, markupAllowed: boolean): Record<string, unknown> {
  if (markupAllowed) return { text };
  return { text: text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'), unfurl_links: false, unfurl_media: false };
}

/**
 * A `response_url` is chosen by whoever sent the payload, so it is only ever called on Slack's
 * own host (https) or the configured baseUrl's origin; anything else would let a payload make
 * Hookgate POST to a server of its choice.
 */
function responseUrl(to: string, baseOrigin: string): string {
  let parsed: URL;
  try {
    parsed = new URL(to);
  } catch {
    throw new DeliveryError('`to` looks like a response_url but is not a valid URL', { retryable: false });
  }
  const slack = parsed.protocol === 'https:' && parsed.host === RESPONSE_URL_HOST;
  if (!slack && parsed.origin !== baseOrigin) {
    throw new DeliveryError(`a response_url must be on https://${RESPONSE_URL_HOST} (or the configured baseUrl); refused another host`, { retryable: false });
  }
  return parsed.href;
}
