import Type from 'typebox';
import { defineChannel } from './define.js';
import { detail, field, httpFailure, joinUrl, post, requireRecipient, type HttpReply } from './http.js';
import { DeliveryError } from './types.js';

const DEFAULT_BASE_URL = 'https://graph.facebook.com/v21.0';
const MAX_CHARS = 4096;
/**
 * Graph error codes that mean "later" rather than "no": API-level throttling (4, 80007, 130429),
 * pair rate limit (131056), temporary unavailability (1, 2, 131000, 133004).
 * Graph sends some of these with HTTP 400, so the code decides, not the status.
 */
const RETRYABLE_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131056, 133004]);

/** WhatsApp Business Cloud API: POST /{phone-number-id}/messages. */
export const whatsappChannel = defineChannel({
  name: 'whatsapp',
  summary: 'WhatsApp through the Business Cloud API (Graph /messages). `to` is a phone number with country code.',
  configSchema: Type.Object(
    {
      phoneNumberId: Type.String({ minLength: 1, pattern: '^[0-9]+$', description: 'Phone number ID of the sending business number (WhatsApp → API Setup).' }),
      accessToken: Type.String({ minLength: 1, description: 'System-user access token with whatsapp_business_messaging. Use ${WHATSAPP_ACCESS_TOKEN}; never logged.' }),
      baseUrl: Type.Optional(Type.String({ minLength: 1, description: `Graph API base URL including the version (default ${DEFAULT_BASE_URL}).` })),
    },
    { additionalProperties: false },
  ),
  maxMessageChars: MAX_CHARS,
  create(config, deps) {
    const url = joinUrl(config.baseUrl ?? DEFAULT_BASE_URL, `${config.phoneNumberId}/messages`);
    const headers = { authorization: `Bearer ${config.accessToken}` };
    return {
      name: 'whatsapp',
      maxMessageChars: MAX_CHARS,
      async send(to, text, signal) {
        const recipient = requireRecipient(to, 'a phone number with country code').replace(/^\+/, '');
        const json = {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: recipient,
          type: 'text',
          text: { body: text, preview_url: false },
        };
        const reply = await post(deps.fetch, url, { headers, json, signal });
        if (reply.status === 200 && Array.isArray(field(reply.json, 'messages'))) return;
        throw graphFailure(reply);
      },
    };
  },
});

/** Graph errors: { error: { message, type, code, error_subcode, error_data: { details }, fbtrace_id } }. */
function graphFailure(reply: HttpReply): DeliveryError {
  const code = field(reply.json, 'error', 'code');
  const details = field(reply.json, 'error', 'error_data', 'details');
  let message = detail(field(reply.json, 'error', 'message'), 'WhatsApp refused the message');
  if (typeof details === 'string' && details.trim() !== '') message += `: ${detail(details, '')}`;
  if (typeof code === 'number') message += ` [code ${code}]`;
  const failure = httpFailure(reply, message);
  if (typeof code !== 'number' || !RETRYABLE_CODES.has(code)) return failure;
  return new DeliveryError(failure.message, { retryable: true, retryAfterMs: failure.retryAfterMs, status: reply.status });
}
