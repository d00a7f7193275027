import Type, { type Static, type TObject } from 'typebox';
import { bodyHmacScheme } from './body-hmac.js';
import { sameSecret, stringField } from './primitives.js';

/** What Meta sends as hub.challenge (digits in practice): echoed only when it is this plain. */
const CHALLENGE = /^[A-Za-z0-9_.~-]{1,256}$/;

const OPTIONS = {
  verifyToken: Type.Optional(
    Type.String({ minLength: 1, description: 'The Verify Token entered with the callback URL in Meta\'s dashboard: a GET subscription check carrying it gets its hub.challenge back; a subscription check with another token gets 403 (a GET without hub.* parameters gets 405).' }),
  ),
};
type MetaOptions = Static<TObject<typeof OPTIONS>>;

/** The first change's field ("messages", "feed"), where the payload has entries with changes. */
function firstField(payload: Record<string, unknown>): string | undefined {
  const entry: unknown = Array.isArray(payload['entry']) ? payload['entry'][0] : undefined;
  const changes: unknown = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>)['changes'] : undefined;
  const change: unknown = Array.isArray(changes) ? changes[0] : undefined;
  return change !== null && typeof change === 'object' ? stringField(change as Record<string, unknown>, 'field') : undefined;
}

/**
 * Meta (Graph API, Instagram, WhatsApp, Messenger): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of
 * the body>` with the app secret. Subscribing first sends `GET …?hub.mode=subscribe&hub.verify_token=…
 * &hub.challenge=…`, answered with the challenge as text when the verify token matches.
 */
export const meta = bodyHmacScheme<MetaOptions>({
  name: 'meta',
  summary: 'X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body> (app secret); GET hub.challenge answered with verifyToken',
  header: 'X-Hub-Signature-256',
  algorithm: 'sha256',
  encoding: 'hex',
  prefix: 'sha256=',
  // The legacy SHA-1 header carries a signature of the same body too.
  alsoSignatureHeaders: ['x-hub-signature'],
  options: OPTIONS,
  deliveryId: () => undefined,
  // "whatsapp_business_account.messages", "page.feed", or the object alone.
  eventType(_headers, payload) {
    const object = stringField(payload, 'object');
    const field = firstField(payload);
    return object === undefined || field === undefined ? object : `${object}.${field}`;
  },
  subscription(settings, query) {
    const mode = query.get('hub.mode');
    const token = query.get('hub.verify_token');
    const challenge = query.get('hub.challenge');
    if (mode === null && token === null && challenge === null) return { ok: false, reason: 'absent' };
    if (mode !== 'subscribe' || token === null || challenge === null) return { ok: false, reason: 'malformed' };
    const expected = settings.options.verifyToken;
    if (expected === undefined || !sameSecret(token, expected)) return { ok: false, reason: 'refused' };
    return CHALLENGE.test(challenge) ? { ok: true, text: challenge } : { ok: false, reason: 'malformed' };
  },
});
