import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient, secondsToMs } from './http.js';

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
      async send(to, text, signal) {
        const chatId = requireRecipient(to, 'a Telegram chat id or @channelusername');
        // No parse_mode: the reply is plain text, so nothing in it can be read as HTML or Markdown.
        const reply = await post(deps.fetch, url, { json: { chat_id: chatId, text }, signal });
        if (reply.status === 200 && field(reply.json, 'ok') === true) return;
        let message = detail(field(reply.json, 'description'), 'Telegram refused the message');
        const migratedTo = field(reply.json, 'parameters', 'migrate_to_chat_id');
        if (typeof migratedTo === 'number') message += `; the group is now supergroup ${migratedTo}, use it as \`to\``;
        throw httpFailure(reply, message, secondsToMs(field(reply.json, 'parameters', 'retry_after')));
      },
    };
  },
});
