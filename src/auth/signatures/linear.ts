import { anyMatches, expectedDigests, firstSecretDigest, SHARED_SECRET_JSON } from './body-hmac.js';
import { headerOf, stringField, withAction, withinWindow } from './primitives.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'linear-signature';
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** The payload's `webhookTimestamp` (Unix milliseconds), read from the verified bytes. */
function webhookTimestamp(body: Buffer): number | undefined {
  try {
    const value = (JSON.parse(body.toString('utf8')) as Record<string, unknown>)['webhookTimestamp'];
    return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Linear: `Linear-Signature: <hex HMAC-SHA256 of the body>`. The time is the body's own
 * `webhookTimestamp` (ms), covered by the signature; the `Linear-Timestamp` header is not signed and
 * is not read.
 */
export const linear: SignatureScheme = {
  ...SHARED_SECRET_JSON,
  name: 'linear',
  summary: 'Linear-Signature: <hex HMAC-SHA256 of the body>, body field webhookTimestamp (ms) within the tolerance',
  timestamped: true,
  signsBody: true,
  replayKey: 'content',
  signatureHeaders: () => [HEADER],
  async verify(settings, request) {
    const presented = headerOf(request.headers, HEADER);
    if (presented === undefined) return { ok: false, reason: 'missing' };
    if (!HEX_SHA256.test(presented)) return { ok: false, reason: 'malformed' };
    if (!anyMatches([presented], expectedDigests(settings, 'sha256', 'hex', request.body))) return { ok: false, reason: 'mismatch' };
    const millis = webhookTimestamp(request.body);
    if (millis === undefined) return { ok: false, reason: 'malformed' };
    return withinWindow(Math.floor(millis / 1000), settings, request.nowSeconds);
  },
  deliveryIdHeader: 'linear-delivery',
  deliveryId: (headers) => headerOf(headers, 'linear-delivery'),
  // "Issue.create", "Comment.update": the entity type and the action.
  eventType: (_headers, payload) => withAction(stringField(payload, 'type'), payload['action']),
  async sign(settings, body, now, deliveryId) {
    const stamped = stampBody(body, now);
    const signature = firstSecretDigest(settings, 'sha256', 'hex', stamped);
    return { body: stamped, headers: { 'Linear-Delivery': deliveryId, 'Linear-Event': 'Issue', 'Linear-Signature': signature } };
  },
};

/** The body as Linear would send it at `now`: a JSON object with its webhookTimestamp set (else unchanged). */
function stampBody(body: Buffer, now: number): Buffer {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return body;
    return Buffer.from(JSON.stringify({ ...(value as Record<string, unknown>), webhookTimestamp: now * 1000 }));
  } catch {
    return body;
  }
}

