import { randomUUID } from 'node:crypto';
import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient } from './http.js';

/**
 * iMessage has no documented length limit; 8000 characters keeps each bubble readable and each
 * Messages.app send (AppleScript or Private API) small.
 */
const MAX_CHARS = 8000;

/** BlueBubbles server REST API: POST /api/v1/message/text. */
export const imessageChannel = defineChannel({
  name: 'imessage',
  summary: 'iMessage through a BlueBubbles server on a Mac. `to` is a chat guid (iMessage;-;+4912…) or a phone number / Apple ID e-mail.',
  aliases: ['imsg'],
  configSchema: Type.Object(
    {
      baseUrl: Type.String({ minLength: 1, description: 'Your BlueBubbles server, e.g. http://mac-mini.tailnet:1234.' }),
      password: Type.String({ minLength: 1, description: 'The BlueBubbles server password. Use ${BLUEBUBBLES_PASSWORD}; never logged.' }),
      method: Type.Optional(
        Type.Union([Type.Literal('apple-script'), Type.Literal('private-api')], {
          description: 'How BlueBubbles sends: apple-script (default, works everywhere) or private-api (needs the Private API helper).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    // BlueBubbles authenticates by query parameter, so this URL is a secret like a token.
    const url = `${joinUrl(config.baseUrl, 'api/v1/message/text')}?password=${encodeURIComponent(config.password)}`;
    const method = config.method ?? 'apple-script';
    return {
      name: 'imessage',
      maxMessageChars: MAX_CHARS,
      async send(to, text, signal) {
        const chatGuid = toChatGuid(requireRecipient(to, 'a chat guid, phone number or Apple ID'));
        // tempGuid lets BlueBubbles match the sent message to this request.
        const json = { chatGuid, tempGuid: `hookgate-${randomUUID()}`, message: text, method };
        const reply = await post(deps.fetch, url, { json, signal });
        if (reply.status === 200 && field(reply.json, 'status') === 200) return;
        // Errors: { status, message, error: { type, message } }.
        const summary = detail(field(reply.json, 'message'), 'BlueBubbles refused the message');
        const reason = detail(field(reply.json, 'error', 'message'), '');
        throw httpFailure(reply, reason === '' ? summary : `${summary}: ${reason}`);
      },
    };
  },
});

/** A bare handle (phone number or e-mail) becomes the guid of its one-to-one iMessage chat. */
export function toChatGuid(to: string): string {
  return to.includes(';') ? to : `iMessage;-;${to}`;
}
