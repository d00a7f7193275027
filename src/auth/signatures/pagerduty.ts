import { anyMatches, expectedDigests, SHARED_SECRET_JSON } from './body-hmac.js';
import { headerOf, objectField, stringField } from './primitives.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'x-pagerduty-signature';
const V1 = /^v1=([0-9a-f]{64})$/;

/**
 * PagerDuty (webhooks v3): `X-PagerDuty-Signature: v1=<hex>[,v1=<hex>…]`, each an HMAC-SHA256 of the
 * body; any listed signature may match (PagerDuty lists one per secret while a secret is rotated).
 */
export const pagerduty: SignatureScheme = {
  ...SHARED_SECRET_JSON,
  name: 'pagerduty',
  summary: 'X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body>[,v1=<hex>…] (any may match)',
  timestamped: false,
  signsBody: true,
  replayKey: 'content',
  signatureHeaders: () => [HEADER],
  async verify(settings, request) {
    const header = headerOf(request.headers, HEADER);
    if (header === undefined) return { ok: false, reason: 'missing' };
    const presented = header.split(',').flatMap((item) => V1.exec(item.trim())?.slice(1, 2) ?? []);
    if (presented.length === 0) return { ok: false, reason: 'malformed' };
    return anyMatches(presented, expectedDigests(settings, 'sha256', 'hex', request.body)) ? { ok: true, timestamp: undefined } : { ok: false, reason: 'mismatch' };
  },
  deliveryIdHeader: 'x-webhook-id',
  deliveryId: (headers) => headerOf(headers, 'x-webhook-id'),
  // "incident.triggered", "service.updated": the event's own type.
  eventType: (_headers, payload) => stringField(objectField(payload, 'event') ?? {}, 'event_type'),
  async sign(settings, body, _now, deliveryId) {
    const signature = expectedDigests(settings, 'sha256', 'hex', body).slice(0, 1).map((digest) => `v1=${digest}`).join(',');
    return { headers: { 'X-Webhook-Id': deliveryId, 'X-PagerDuty-Signature': signature } };
  },
};
