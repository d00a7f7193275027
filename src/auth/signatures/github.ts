import { SHARED_SECRET_JSON } from './body-hmac.js';
import { isUtf8 } from 'node:buffer';
import { sign, verify } from '@octokit/webhooks-methods';
import { headerOf, withAction } from './primitives.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'x-hub-signature-256';
const SHAPE = /^sha256=[0-9a-f]{64}$/;

/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`; delivery id `X-GitHub-Delivery`. */
export const github: SignatureScheme = {
  ...SHARED_SECRET_JSON,
  name: 'github',
  summary: 'X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>',
  timestamped: false,
  signsBody: true,
  replayKey: 'content',
  signatureHeaders: () => [HEADER, 'x-hub-signature'],
  async verify(settings, request) {
    const presented = headerOf(request.headers, HEADER);
    if (presented === undefined) return { ok: false, reason: 'missing' };
    if (!SHAPE.test(presented)) return { ok: false, reason: 'malformed' };
    // The library takes the body as text: bytes that are not UTF-8 would be read with
    // replacement characters, so two different bodies could share a signature. GitHub sends UTF-8 JSON.
    if (request.body.length === 0 || !isUtf8(request.body)) return { ok: false, reason: 'mismatch' };
    const text = request.body.toString('utf8');
    let found = false;
    for (const secret of settings.secrets) found = (await verify(secret, text, presented)) || found;
    return found ? { ok: true, timestamp: undefined } : { ok: false, reason: 'mismatch' };
  },
  deliveryIdHeader: 'x-github-delivery',
  deliveryId: (headers) => headerOf(headers, 'x-github-delivery'),
  eventType: (headers, payload) => withAction(headerOf(headers, 'x-github-event'), payload['action']),
  // GitHub sends a signed ping when a webhook is created: acknowledged, nothing to act on.
  handshake: (headers) => (headers['x-github-event'] === 'ping' ? { status: 200, body: { ok: true, ping: true } } : undefined),
  async sign(settings, body, _now, deliveryId) {
    const signature = await sign(settings.secrets[0] ?? '', body.toString('utf8'));
    return { headers: { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': deliveryId, 'X-Hub-Signature-256': signature } };
  },
};
