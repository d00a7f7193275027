import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks headers for one message: `webhook-id` (the same on every attempt, so the
 * receiver dedupes on it), `webhook-timestamp` (Unix seconds of this attempt) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, computed by the
 * `standardwebhooks` library with the base64 secret (`whsec_` prefix optional).
 */
export function standardWebhookHeaders(secret: string, id: string, nowMs: number, body: string): Record<string, string> {
  const at = new Date(Math.floor(nowMs / 1000) * 1000);
  const signature = new Webhook(secret).sign(id, at, body);
  return { 'webhook-id': id, 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': signature };
}

/** Whether `secret` can sign Standard Webhooks (base64, optionally prefixed `whsec_`); the reason when not. */
export function standardWebhookSecretProblem(secret: string): string | undefined {
  try {
    new Webhook(secret);
    return undefined;
  } catch {
    return 'is not a Standard Webhooks secret (base64, optionally prefixed whsec_)';
  }
}

/**
 * Hermes' generic route signature (V2): `X-Webhook-Timestamp: <unix seconds>` and
 * `X-Webhook-Signature-V2: <hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed by the route's secret
 * as UTF-8. Hermes refuses a timestamp more than 300 s away from its clock.
 */
export function hermesSignatureHeaders(secret: string, nowMs: number, body: string): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signature = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return { 'x-webhook-timestamp': timestamp, 'x-webhook-signature-v2': signature };
}
