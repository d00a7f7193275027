import { anyMatches, expectedDigests, firstSecretDigest, SHARED_SECRET_JSON } from './body-hmac.js';
import { readStampedSignature, stringField, withinWindow } from './primitives.js';
import type { SignatureScheme } from './types.js';

const SIGNATURE = 'x-zendesk-webhook-signature';
const TIMESTAMP = 'x-zendesk-webhook-signature-timestamp';
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
/** Zendesk writes the time as ISO 8601 in UTC, e.g. 2021-07-25T10:00:00Z. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const EVENT_PREFIX = 'zen:event-type:';

function parseIsoSeconds(text: string): number | undefined {
  if (!ISO_UTC.test(text)) return undefined;
  const millis = Date.parse(text);
  return Number.isFinite(millis) ? Math.floor(millis / 1000) : undefined;
}

/**
 * Zendesk: `X-Zendesk-Webhook-Signature: <base64 HMAC-SHA256 of timestamp + body>` with
 * `X-Zendesk-Webhook-Signature-Timestamp` (ISO 8601), keyed by the webhook's signing secret as text.
 */
export const zendesk: SignatureScheme = {
  ...SHARED_SECRET_JSON,
  name: 'zendesk',
  summary: 'X-Zendesk-Webhook-Signature-Timestamp: <ISO 8601>, X-Zendesk-Webhook-Signature: <base64 HMAC-SHA256 of timestamp + body>',
  timestamped: true,
  signsBody: true,
  replayKey: 'delivery-id',
  signatureHeaders: () => [SIGNATURE],
  async verify(settings, request) {
    const read = readStampedSignature(request.headers, SIGNATURE, TIMESTAMP, BASE64_SHA256, parseIsoSeconds);
    if (!read.ok) return read;
    const { presented, stamp, timestamp } = read;
    if (!anyMatches([presented], expectedDigests(settings, 'sha256', 'base64', stamp, request.body))) return { ok: false, reason: 'mismatch' };
    return withinWindow(timestamp, settings, request.nowSeconds);
  },
  // Event-subscribed webhooks carry the event's id in the (signed) body. A trigger webhook's body is the
  // operator's own (its "id" may well be a ticket's, the same for every update): no delivery id then.
  deliveryId: (_headers, payload) => (stringField(payload, 'type')?.startsWith(EVENT_PREFIX) === true ? stringField(payload, 'id') : undefined),
  // "ticket.created" from "zen:event-type:ticket.created".
  eventType(_headers, payload) {
    const type = stringField(payload, 'type');
    return type?.startsWith(EVENT_PREFIX) === true ? type.slice(EVENT_PREFIX.length) : type;
  },
  async sign(settings, body, now) {
    const stamp = new Date(now * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { headers: { 'X-Zendesk-Webhook-Signature-Timestamp': stamp, 'X-Zendesk-Webhook-Signature': firstSecretDigest(settings, 'sha256', 'base64', stamp, body) } };
  },
};
