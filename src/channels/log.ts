import Type from 'typebox';
import { defineChannel } from './define.js';
import { keyedDigester } from '../log-digest.js';

// Replies often quote the payload they answer (the echo provider always does), and raw payloads
// stay out of logs: by default only the length is logged; the text is kept in the store.
const DEFAULT_LOGGED_CHARS = 0;
/** One log line per part; beyond this a reply becomes several lines rather than one huge one. */
const MAX_CHARS = 65_536;

/**
 * The embedded default: a delivery becomes one `delivery.log` line with the reply's length; with
 * `maxLoggedChars` > 0 its beginning too. The runtime keeps the full text in the store.
 */
export const logChannel = defineChannel({
  name: 'log',
  summary: 'The embedded default: deliveries become log lines (event delivery.log). Always available.',
  configSchema: Type.Object(
    {
      maxLoggedChars: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_CHARS,
          description: `How much of the reply is written to the log line (default ${DEFAULT_LOGGED_CHARS}: only its length, since replies may quote payloads).`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const limit = config.maxLoggedChars ?? DEFAULT_LOGGED_CHARS;
    const digest = deps.digest ?? keyedDigester();
    return {
      name: 'log',
      maxMessageChars: MAX_CHARS,
      send(to, text) {
        // `to` may be a request field, and a phone number: logged as a keyed digest (the store keeps the delivery row).
        const line: Record<string, unknown> = { event: 'delivery.log', channel: 'log', to: digest(to), length: text.length };
        if (limit > 0) {
          line['text'] = text.length > limit ? cut(text, limit) : text;
          line['truncated'] = text.length > limit;
        }
        deps.logger.info(line, 'delivery to the log channel');
        return Promise.resolve();
      },
    };
  },
});

/** The first `limit` UTF-16 units, without leaving half of a surrogate pair at the end. */
function cut(text: string, limit: number): string {
  const code = text.charCodeAt(limit - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit);
}
