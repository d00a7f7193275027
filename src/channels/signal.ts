import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient } from './http.js';

/**
 * Signal shows up to 2000 characters inline; longer bodies travel as a "long text" attachment
 * that not every client (or signal-cli version) renders, so replies are split at 2000.
 */
const MAX_CHARS = 2000;

/** signal-cli REST API (bbernhard/signal-cli-rest-api): POST /v2/send. */
export const signalChannel = defineChannel({
  name: 'signal',
  summary: 'Signal through a signal-cli REST API server (/v2/send). `to` is a phone number (+4912…), a username or group.<id>.',
  configSchema: Type.Object(
    {
      baseUrl: Type.String({ minLength: 1, description: 'Your signal-cli-rest-api server, e.g. http://127.0.0.1:8080.' }),
      account: Type.String({ minLength: 1, description: 'The registered number messages are sent from, in international format (+4912…).' }),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const url = joinUrl(config.baseUrl, 'v2/send');
    return {
      name: 'signal',
      maxMessageChars: MAX_CHARS,
      async send(to, text, signal) {
        const recipient = requireRecipient(to, 'a phone number, username or group id');
        const json = { message: text, number: config.account, recipients: [recipient] };
        const reply = await post(deps.fetch, url, { json, signal });
        if (reply.status === 201 || reply.status === 200) return;
        // signal-cli-rest-api answers failures with { "error": "…" } (400 for anything signal-cli refused).
        throw httpFailure(reply, detail(field(reply.json, 'error'), detail(reply.text, 'signal-cli refused the message')));
      },
    };
  },
});
