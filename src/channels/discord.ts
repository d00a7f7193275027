import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, pathSegment, post, requireRecipient, secondsToMs, type HttpReply } from './http.js';
import { allowed, MarkupSchema, neutraliseMarkdown, type SendOptions } from './markup.js';
import type { Rendering } from './types.js';

const DEFAULT_BASE_URL = 'https://discord.com/api/v10';
/** Discord asks bots to identify themselves as `DiscordBot ($url, $version)`. */
const USER_AGENT = 'DiscordBot (https://github.com/hookgate/hookgate, 0.1.0)';
/** Message flag SUPPRESS_EMBEDS: no link previews, which Discord would fetch from URLs the text chose. */
const SUPPRESS_EMBEDS = 1 << 2;
const MAX_CHARS = 2000;

/** Discord REST API: https://discord.com/developers/docs/resources/message#create-message */
export const discordChannel = defineChannel({
  name: 'discord',
  summary: 'Discord through the REST API (Create Message) as a bot. `to` is a channel id.',
  configSchema: Type.Object(
    {
      token: Type.String({ minLength: 1, description: 'Bot token from the Developer Portal (Bot → Reset Token). Use ${DISCORD_BOT_TOKEN}; never logged.' }),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `API base URL including the version (default ${DEFAULT_BASE_URL}).` })),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const base = config.baseUrl ?? DEFAULT_BASE_URL;
    const headers = { authorization: `Bot ${config.token}`, 'user-agent': USER_AGENT };
    // Neutral: masked links show their target, and nothing embeds.
    const rendering: Rendering = {
      maxChars: MAX_CHARS,
      render: (text, options?: SendOptions) => (allowed(config.markup, options) ? text : neutraliseMarkdown(text, { mentions: 'mass', links: true, emphasisCrossesCode: true })),
    };
    return {
      name: 'discord',
      maxMessageChars: MAX_CHARS,
      rendering,
      async send(to, text, signal, options?: SendOptions) {
        const channelId = requireRecipient(to, 'a Discord channel id');
        const url = joinUrl(base, `channels/${pathSegment(channelId)}/messages`);
        // allowed_mentions with no parse types: text taken from a webhook must not ping @everyone or roles,
        // whatever `markup` says.
        const content = rendering.render(text, options);
        const json = allowed(config.markup, options) ? { content, allowed_mentions: { parse: [] } } : { content, allowed_mentions: { parse: [] }, flags: SUPPRESS_EMBEDS };
        const reply = await post(deps.fetch, url, { headers, json, signal });
        if (reply.status !== 200 && reply.status !== 201) throw failure(reply);
      },
    };
  },
});

function failure(reply: HttpReply): Error {
  const message = detail(field(reply.json, 'message'), 'Discord refused the message');
  const code = field(reply.json, 'code');
  // The body's retry_after is a float in seconds, more precise than the Retry-After header.
  const retryAfterMs = secondsToMs(field(reply.json, 'retry_after'));
  return httpFailure(reply, typeof code === 'number' ? `${message} [code ${code}]` : message, retryAfterMs);
}
