import { isUtf8 } from 'node:buffer';
import { Webhook } from 'standardwebhooks';
import { anyMatches } from './body-hmac.js';
import { parseUnixSeconds, stringField, withinWindow } from './primitives.js';
import type { HeaderMap, SignatureScheme } from './types.js';

/** Standard Webhooks headers, or the same under the `svix-` names Svix senders use. */
function pick(headers: HeaderMap, name: 'id' | 'timestamp' | 'signature'): string | undefined {
  const value = headers[`webhook-${name}`] ?? headers[`svix-${name}`];
  return value === '' ? undefined : value;
}

/**
 * Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<ts>.<body>">` (space-separated
 * list), keyed by the base64-decoded secret (`whsec_` stripped). The library computes the signature;
 * the window and the comparison are ours so the tolerance is configurable and the clock injectable.
 * GitLab's newer signing token follows this standard too.
 */
export const standardWebhooks: SignatureScheme = {
  name: 'standard-webhooks',
  summary: 'webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<ts>.<body>"> (or svix-*)',
  timestamped: true,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => false,
  replayKey: 'delivery-id',
  options: {},
  checkSettings(settings) {
    const problems: Array<{ field: string; message: string }> = [];
    for (const [index, secret] of settings.secrets.entries()) {
      try {
        new Webhook(secret);
      } catch {
        problems.push({ field: 'secret', message: `secret ${index + 1} is not a Standard Webhooks secret (base64, optionally prefixed whsec_)` });
      }
    }
    return problems;
  },
  signatureHeaders: () => ['webhook-signature', 'svix-signature'],
  async verify(settings, request) {
    const id = pick(request.headers, 'id');
    const stamp = pick(request.headers, 'timestamp');
    const header = pick(request.headers, 'signature');
    if (id === undefined || stamp === undefined || header === undefined) return { ok: false, reason: 'missing' };
    const timestamp = parseUnixSeconds(stamp);
    const presented = header.split(' ').flatMap((item) => (item.startsWith('v1,') ? [item.slice(3)] : []));
    if (timestamp === undefined || presented.length === 0) return { ok: false, reason: 'malformed' };
    // The library signs the body as text; bytes that are not UTF-8 could alias another body.
    if (!isUtf8(request.body)) return { ok: false, reason: 'mismatch' };
    const at = new Date(timestamp * 1000);
    const expected = settings.secrets.map((secret) => new Webhook(secret).sign(id, at, request.body).slice('v1,'.length));
    if (!anyMatches(presented, expected)) return { ok: false, reason: 'mismatch' };
    return withinWindow(timestamp, settings, request.nowSeconds);
  },
  deliveryIdHeader: 'webhook-id',
  deliveryId: (headers) => pick(headers, 'id'),
  eventType: (_headers, payload) => stringField(payload, 'type'),
  async sign(settings, body, now, deliveryId) {
    const signature = new Webhook(settings.secrets[0] ?? '').sign(deliveryId, new Date(now * 1000), body);
    return { headers: { 'webhook-id': deliveryId, 'webhook-timestamp': String(now), 'webhook-signature': signature } };
  },
};
