import { anyMatches, expectedDigests, firstSecretDigest } from './body-hmac.js';
import { objectField, parseUnixSeconds, readStampedSignature, stringField, withinWindow } from './primitives.js';
import type { SignatureScheme } from './types.js';

const SIGNATURE = 'x-slack-signature';
const TIMESTAMP = 'x-slack-request-timestamp';
const VERSION = 'v0=';
const SHAPE = /^v0=[0-9a-f]{64}$/;

/** Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<ts>:<body>">` with `X-Slack-Request-Timestamp`. */
export const slack: SignatureScheme = {
  name: 'slack',
  summary: 'X-Slack-Request-Timestamp: <unix>, X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<ts>:<body>">',
  timestamped: true,
  signsBody: true,
  usesSecret: true,
  acceptsForm: () => true,
  replayKey: 'delivery-id',
  options: {},
  checkSettings: () => [],
  signatureHeaders: () => [SIGNATURE],
  async verify(settings, request) {
    const read = readStampedSignature(request.headers, SIGNATURE, TIMESTAMP, SHAPE, parseUnixSeconds);
    if (!read.ok) return read;
    const { presented, timestamp } = read;
    if (!anyMatches([presented.slice(VERSION.length)], expectedDigests(settings, 'sha256', 'hex', `v0:${timestamp}:`, request.body))) return { ok: false, reason: 'mismatch' };
    return withinWindow(timestamp, settings, request.nowSeconds);
  },
  // Events API callbacks carry event_id (kept across Slack's retries); slash commands carry none.
  deliveryId: (_headers, payload) => stringField(payload, 'event_id'),
  eventType: (_headers, payload) => stringField(objectField(payload, 'event') ?? {}, 'type') ?? stringField(payload, 'type'),
  // Slack confirms a new Events API URL with a signed url_verification that must echo the challenge.
  handshake(_headers, payload) {
    const challenge = payload['challenge'];
    return payload['type'] === 'url_verification' && typeof challenge === 'string' ? { status: 200, body: { challenge } } : undefined;
  },
  async sign(settings, body, now) {
    const signature = firstSecretDigest(settings, 'sha256', 'hex', `v0:${now}:`, body);
    return { headers: { 'X-Slack-Request-Timestamp': String(now), 'X-Slack-Signature': `${VERSION}${signature}` } };
  },
};
