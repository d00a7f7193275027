import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient, type HttpReply } from './http.js';
import { allowed, MarkupSchema, neutraliseMarkdown, type SendOptions } from './markup.js';
import { splitThread } from './threads.js';
import type { Rendering } from './types.js';

/** Mattermost 5.0+ accepts posts of up to 16383 runes. */
const MAX_CHARS = 16383;

/** Mattermost REST API v4: https://developers.mattermost.com/api-documentation/#/operations/CreatePost */
export const mattermostChannel = defineChannel({
  name: 'mattermost',
  summary: 'Mattermost through the REST API v4 (create post) as a bot account. `to` is a channel id; `<channel id>#<post id>` answers in that thread (root_id).',
  configSchema: Type.Object(
    {
      baseUrl: Type.String({ minLength: 1, description: 'Your Mattermost server, e.g. https://chat.example.com (the API lives under /api/v4).' }),
      botToken: Type.String({ minLength: 1, description: 'Access token of a bot account (Integrations → Bot Accounts). Use ${MATTERMOST_BOT_TOKEN}; never logged.' }),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const url = joinUrl(config.baseUrl, 'api/v4/posts');
    const headers = { authorization: `Bearer ${config.botToken}` };
    // Mattermost renders Markdown: @channel/@all/@here ping everyone, images and link previews load.
    const rendering: Rendering = {
      maxChars: MAX_CHARS,
      render: (text, options?: SendOptions) => (allowed(config.markup, options) ? text : neutraliseMarkdown(text, { mentions: 'mass', links: true })),
    };
    return {
      name: 'mattermost',
      maxMessageChars: MAX_CHARS,
      rendering,
      async send(to, text, signal, options?: SendOptions) {
        const { recipient, thread } = splitThread(to);
        const channelId = requireRecipient(recipient, 'a Mattermost channel id');
        const json = { channel_id: channelId, message: rendering.render(text, options), ...(thread === undefined ? {} : { root_id: thread }) };
        const reply = await post(deps.fetch, url, { headers, json, signal });
        if (reply.status !== 201 && reply.status !== 200) throw failure(reply);
      },
    };
  },
});

function failure(reply: HttpReply): Error {
  // Errors are AppError objects: { id, message, detailed_error, request_id, status_code }.
  const message = detail(field(reply.json, 'message'), detail(reply.text, 'Mattermost refused the message'));
  const id = field(reply.json, 'id');
  return httpFailure(reply, typeof id === 'string' ? `${message} [${id}]` : message);
}
