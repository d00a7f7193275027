import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Answer, Recorded } from '../channels/fake-service.js';

/**
 * A stand-in for one route of Hermes Agent's webhook adapter, verifying and deduping exactly as
 * its gateway/platforms/webhook.py does (NousResearch/hermes-agent; facts of its behaviour, not its
 * code): POST /webhooks/<route>; the signature checked in its order (svix-* or webhook-* headers:
 * base64 HMAC-SHA256 of "<id>.<ts>.<body>" keyed by the base64 secret after `whsec_` or else the
 * secret's bytes, within 300 s; linear-signature; X-Hub-Signature-256; X-Gitlab-Token; generic V2:
 * X-Webhook-Signature-V2 = hex HMAC of "<ts>.<body>" with X-Webhook-Timestamp within 300 s, no
 * fall-through to V1 once V2 is present; legacy V1: hex HMAC of the body); 401 "Invalid signature";
 * 30 requests a minute per route, then 429 without Retry-After; the event type from X-GitHub-Event,
 * X-GitLab-Event, the payload's `event_type` or `type`; the delivery id from X-GitHub-Delivery,
 * svix-id, webhook-id, X-Request-ID, else the time; a delivery id seen within an hour → 200
 * duplicate; else 202 accepted (the agent run is dispatched).
 */
export interface HermesRoute {
  handler: (request: Recorded) => Answer;
  /** The payloads dispatched to an agent run, in order. */
  dispatched: Array<{ deliveryId: string; event: string; payload: Record<string, unknown> }>;
}

const WINDOW_SECONDS = 300;

export function hermesRoute(options: { route: string; secret: string; events?: string[]; nowSeconds?: () => number }): HermesRoute {
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const seen = new Map<string, number>();
  const hits: number[] = [];
  const dispatched: HermesRoute['dispatched'] = [];
  const handler = (request: Recorded): Answer => {
    if (request.method !== 'POST' || request.path !== `/webhooks/${options.route}`) return { status: 404, json: { error: `Unknown route: ${request.path.split('/').pop()}` } };
    if (!validSignature(request.headers, Buffer.from(request.text, 'utf8'), options.secret, nowSeconds())) return { status: 401, json: { error: 'Invalid signature' } };
    const now = nowSeconds();
    while (hits.length > 0 && (hits[0] as number) < now - 60) hits.shift();
    if (hits.length >= 30) return { status: 429, json: { error: 'Rate limit exceeded' } };
    hits.push(now);
    const payload = request.json;
    if (payload === null || typeof payload !== 'object') return { status: 400, json: { error: 'Cannot parse body' } };
    const fields = payload as Record<string, unknown>;
    const event = header(request.headers, 'x-github-event') || header(request.headers, 'x-gitlab-event') || String(fields['event_type'] ?? '') || String(fields['type'] ?? '') || 'unknown';
    if (options.events !== undefined && !options.events.includes(event)) return { status: 200, json: { status: 'ignored', event } };
    const deliveryId = header(request.headers, 'x-github-delivery') || header(request.headers, 'svix-id') || header(request.headers, 'webhook-id') || header(request.headers, 'x-request-id') || String(Date.now());
    const seenAt = seen.get(deliveryId);
    if (seenAt !== undefined && now - seenAt < 3600) return { status: 200, json: { status: 'duplicate', delivery_id: deliveryId } };
    seen.set(deliveryId, now);
    dispatched.push({ deliveryId, event, payload: fields });
    return { status: 202, json: { status: 'accepted', route: options.route, event, delivery_id: deliveryId } };
  };
  return { handler, dispatched };
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return typeof value === 'string' ? value : '';
}

function validSignature(headers: IncomingHttpHeaders, body: Buffer, secret: string, now: number): boolean {
  let svix = ['svix-id', 'svix-timestamp', 'svix-signature'].map((name) => header(headers, name));
  if (!svix.some(Boolean) && header(headers, 'webhook-signature') !== '') svix = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => header(headers, name));
  if (svix.some(Boolean)) return validSvix(body, secret, svix as [string, string, string], now);
  const hex = (data: Buffer) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest('hex');
  const checks: Array<[string, () => string]> = [
    [header(headers, 'linear-signature'), () => hex(body)],
    [header(headers, 'x-hub-signature-256'), () => `sha256=${hex(body)}`],
    [header(headers, 'x-gitlab-token'), () => secret],
  ];
  for (const [provided, expected] of checks) if (provided !== '') return same(provided, expected());
  const v2 = header(headers, 'x-webhook-signature-v2');
  if (v2 !== '') {
    const timestamp = header(headers, 'x-webhook-timestamp');
    if (timestamp === '' || !fresh(timestamp, now)) return false;
    return same(v2, hex(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body])));
  }
  const v1 = header(headers, 'x-webhook-signature');
  return v1 !== '' && same(v1, hex(body));
}

function validSvix(body: Buffer, secret: string, [id, timestamp, signatures]: [string, string, string], now: number): boolean {
  if (id === '' || timestamp === '' || signatures === '' || !fresh(timestamp, now)) return false;
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
  const expected = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body])).digest('base64');
  return signatures.split(' ').some((part) => {
    const [version, signature] = part.split(',', 2);
    return version === 'v1' && signature !== undefined && same(signature, expected);
  });
}

function fresh(raw: string, now: number): boolean {
  const value = Number.parseInt(raw, 10);
  return Number.isFinite(value) && Math.abs(now - value) <= WINDOW_SECONDS;
}

function same(provided: string, expected: string): boolean {
  const a = Buffer.from(provided, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
