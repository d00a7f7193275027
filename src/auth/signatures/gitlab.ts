import { SHARED_SECRET_JSON } from './body-hmac.js';
import { headerOf, objectField, sameSecret, stringField, withAction } from './primitives.js';
import type { SignatureScheme } from './types.js';

const HEADER = 'x-gitlab-token';

/**
 * GitLab's secret token: `X-Gitlab-Token` carries the configured secret itself, compared in constant
 * time. It proves the sender knows the secret but does not cover the body, so it is as strong as a
 * hook token sent over HTTPS. GitLab's newer signing token signs the body the Standard Webhooks way:
 * use scheme `standard-webhooks` for it.
 */
export const gitlab: SignatureScheme = {
  ...SHARED_SECRET_JSON,
  name: 'gitlab',
  summary: 'X-Gitlab-Token: <the secret token itself> (the body is not signed)',
  timestamped: false,
  signsBody: false,
  replayKey: 'content',
  signatureHeaders: () => [HEADER],
  async verify(settings, request) {
    const presented = headerOf(request.headers, HEADER);
    if (presented === undefined) return { ok: false, reason: 'missing' };
    let found = false;
    for (const secret of settings.secrets) found = sameSecret(presented, secret) || found;
    return found ? { ok: true, timestamp: undefined } : { ok: false, reason: 'mismatch' };
  },
  deliveryIdHeader: 'x-gitlab-event-uuid',
  // Idempotency-Key is unique per delivery and kept across GitLab's retries.
  deliveryId: (headers) => headerOf(headers, 'idempotency-key') ?? headerOf(headers, 'x-gitlab-event-uuid'),
  // object_kind ("merge_request"), or a system hook's event_name, plus the action when one is given.
  eventType: (headers, payload) =>
    withAction(stringField(payload, 'object_kind') ?? stringField(payload, 'event_name') ?? headerOf(headers, 'x-gitlab-event'), objectField(payload, 'object_attributes')?.['action']),
  async sign(settings, _body, _now, deliveryId) {
    return { headers: { 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Event-UUID': deliveryId, 'Idempotency-Key': deliveryId, 'X-Gitlab-Token': settings.secrets[0] ?? '' } };
  },
};
