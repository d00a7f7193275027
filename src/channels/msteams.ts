import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, pathSegment, post, requireRecipient } from './http.js';
import { createTokenSource } from './msteams-token.js';
import { allowed, MarkupSchema, type SendOptions } from './markup.js';
import { splitThread } from './threads.js';
import { DeliveryError } from './types.js';

const DEFAULT_TOKEN_URL = 'https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token';
/** The global Teams service URL Microsoft documents for proactive messages. */
const DEFAULT_SERVICE_URL = 'https://smba.trafficmanager.net/teams/';
/**
 * Teams refuses activities above about 28 KB. 7000 UTF-16 units stay below that even when every
 * character takes three bytes in UTF-8, with room for the JSON around them.
 */
const MAX_CHARS = 7000;

/** Bot Framework Connector: POST {serviceUrl}/v3/conversations/{conversationId}/activities. */
export const msteamsChannel = defineChannel({
  name: 'msteams',
  summary:
    'Microsoft Teams through the Bot Framework Connector as an Azure Bot. `to` is a conversation id (19:…@thread.tacv2, a:…); `<conversation id>#<activity id>` replies to that activity.',
  aliases: ['teams'],
  configSchema: Type.Object(
    {
      appId: Type.String({ minLength: 1, description: 'Microsoft App ID of the Azure Bot registration.' }),
      appPassword: Type.String({ minLength: 1, description: 'Client secret of that app registration. Use ${MSTEAMS_APP_PASSWORD}; never logged.' }),
      serviceUrl: Type.Optional(Type.String({ minLength: 1, description: `Connector service URL from an incoming activity (default ${DEFAULT_SERVICE_URL}).` })),
      tokenUrl: Type.Optional(Type.String({ minLength: 1, description: 'OAuth token endpoint; a single-tenant bot uses https://login.microsoftonline.com/<tenant-id>/oauth2/v2.0/token.' })),
      markup: Type.Optional(MarkupSchema),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const serviceUrl = config.serviceUrl ?? DEFAULT_SERVICE_URL;
    const tokens = createTokenSource({
      fetch: deps.fetch,
      tokenUrl: config.tokenUrl ?? DEFAULT_TOKEN_URL,
      appId: config.appId,
      appPassword: config.appPassword,
      now: deps.now ?? Date.now,
    });
    return {
      name: 'msteams',
      maxMessageChars: MAX_CHARS,
      async send(to, text, signal, options?: SendOptions) {
        const { recipient, thread } = splitThread(to);
        const conversationId = requireRecipient(recipient, 'a Teams conversation id');
        if (signal?.aborted === true) throw new DeliveryError('delivery aborted', { retryable: false });
        const token = await tokens.get();
        const activities = `v3/conversations/${pathSegment(conversationId)}/activities`;
        // Reply to Activity: POST …/activities/{activityId}, the reply naming it as replyToId.
        const url = joinUrl(serviceUrl, thread === undefined ? activities : `${activities}/${pathSegment(thread)}`);
        const headers = { authorization: `Bearer ${token}` };
        // Plain text unless allowed: Teams renders Markdown (hidden link targets, images) by default.
        const json = {
          type: 'message',
          text,
          ...(allowed(config.markup, options) ? {} : { textFormat: 'plain' }),
          ...(thread === undefined ? {} : { replyToId: thread }),
        };
        const reply = await post(deps.fetch, url, { headers, json, signal });
        if (reply.status >= 200 && reply.status < 300) return;
        // ErrorResponse: { error: { code, message } }.
        const code = field(reply.json, 'error', 'code');
        const message = detail(field(reply.json, 'error', 'message'), 'the Bot Connector refused the message');
        const failure = httpFailure(reply, typeof code === 'string' ? `${code}: ${message}` : message);
        if (reply.status !== 401) throw failure;
        // A 401 usually means the cached token was revoked or rotated: fetch a fresh one on the retry.
        tokens.invalidate();
        throw new DeliveryError(failure.message, { retryable: true, status: 401 });
      },
    };
  },
});
