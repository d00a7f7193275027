import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient, secondsToMs } from './http.js';
import { allowed, MarkupSchema, type SendOptions } from './markup.js';
import { integerThread, splitThread } from './threads.js';

const DEFAULT_BASE_URL = 'https://api.telegram.org';

/** Telegram Bot API: https://core.telegram.org/bots/api#sendmessage */
export const telegramChannel = defineChannel({
  name: 'telegram',
  summary: 'Telegram through the Bot API (sendMessage). `to` is a chat id or @channelusername.',
  configSchema: Type.Object(
    {
      botToken: Type.String({
        minLength: 1,
        pattern: '^[^\\s/?#]+$',
        description: 'Bot token from @BotFather (123456:ABC…). Use ${TELEGRAM_BOT_TOKEN}; never logged.',
      }),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `Bot API server (default ${DEFAULT_BASE_URL}; a local telegram-bot-api server works too).` })),
      threads: Type.Optional(
        Type.Union([Type.Literal('topic'), Type.Literal('reply')], {
          description:
            'What the number after `#` in `to` (`-100…#42`) is: `topic` (default) a forum topic, sent as `message_thread_id`; ' +
            '`reply` a message to answer, sent as `reply_parameters.message_id`.',
        }),
      ),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: 4096,
  create(config, deps) {
    // The token is part of the path, so this URL must never reach a log line or an error message.
    const url = joinUrl(config.baseUrl ?? DEFAULT_BASE_URL, `bot${config.botToken}/sendMessage`);
    return {
      name: 'telegram',
      maxMessageChars: 4096,
      async send(to, text, signal, options?: SendOptions) {
        const { recipient, thread } = splitThread(to);
        const chatId = requireRecipient(recipient, 'a Telegram chat id or @channelusername');
        // No parse_mode: the reply is plain text, so nothing in it can be read as HTML or Markdown.
        const json: Record<string, unknown> = { chat_id: chatId, text };
        if (thread !== undefined && config.threads === 'reply') {
          json['reply_parameters'] = { message_id: integerThread(thread, 'a message id'), allow_sending_without_reply: true };
        } else if (thread !== undefined) json['message_thread_id'] = integerThread(thread, 'a forum topic id');
        // A preview is fetched by Telegram's servers from the first link: a request the text chose.
        if (!allowed(config.markup, options)) json['link_preview_options'] = { is_disabled: true };
        const reply = await post(deps.fetch, url, { json, signal });
        if (reply.status === 200 && field(reply.json, 'ok') === true) return;
        let message = detail(field(reply.json, 'description'), 'Telegram refused the message');
        const migratedTo = field(reply.json, 'parameters', 'migrate_to_chat_id');
        if (typeof migratedTo === 'number') message += `; the group is now supergroup ${migratedTo}, use it as \`to\``;
        throw httpFailure(reply, message, secondsToMs(field(reply.json, 'parameters', 'retry_after')));
      },
    };
  },
});
