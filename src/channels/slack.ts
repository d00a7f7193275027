import Type from 'typebox';
import { defineChannel } from './define.js';
import { parseRetryAfterMs } from '../retry.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient } from './http.js';
import { DeliveryError } from './types.js';

const DEFAULT_BASE_URL = 'https://slack.com/api';
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
  summary: 'Slack through the Web API (chat.postMessage) with a bot token. `to` is a channel id (C…), or a user id for a DM.',
  configSchema: Type.Object(
    {
      botToken: Type.String({ minLength: 1, description: 'Bot User OAuth Token (xoxb-…) with the chat:write scope. Use ${SLACK_BOT_TOKEN}; never logged.' }),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `Web API base URL (default ${DEFAULT_BASE_URL}).` })),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const url = joinUrl(config.baseUrl ?? DEFAULT_BASE_URL, 'chat.postMessage');
    const headers = { authorization: `Bearer ${config.botToken}` };
    return {
      name: 'slack',
      maxMessageChars: MAX_CHARS,
      async send(to, text, signal) {
        const channel = requireRecipient(to, 'a Slack channel id');
        const reply = await post(deps.fetch, url, { headers, json: { channel, text: escapeControlSequences(text) }, signal });
        if (reply.status !== 200) throw httpFailure(reply, detail(field(reply.json, 'error'), 'Slack refused the message'));
        if (field(reply.json, 'ok') === true) return;
        // Slack reports most failures as HTTP 200 with ok:false and a machine-readable error.
        const error = detail(field(reply.json, 'error'), 'unknown_error');
        throw new DeliveryError(`Slack error: ${error}`, {
          retryable: RETRYABLE_ERRORS.has(error),
          retryAfterMs: parseRetryAfterMs(reply.headers.get('retry-after')),
          status: reply.status,
        });
      },
    };
  },
});

/**
 * Slack reads `<…>` as links and mentions (`<!channel>` pings everyone) and asks for &, < and >
 * to be escaped; the reply may quote untrusted webhook text, so it is always shown literally.
 */
function escapeControlSequences(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
