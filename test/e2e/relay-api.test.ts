import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

const RELAY_TOKEN = 'relay-token-laptop-0123456789';
const OTHER_TOKEN = 'relay-token-desktop-0123456789';
const GATEWAY_TOKEN = 'gateway-token-0123456789abcdef';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

function edge(extra: Record<string, unknown> = {}, laptop: Record<string, unknown> = {}): Promise<TestService> {
  return startTestService({
    gateway: { auth: { token: GATEWAY_TOKEN } },
    targets: { laptop: { kind: 'relay', tokens: [RELAY_TOKEN], ...laptop }, desktop: { kind: 'relay', tokens: [OTHER_TOKEN] } },
    agents: { defaults: { forward: 'laptop', ...(extra['defaults'] as object | undefined) } },
    hooks: { throttle: { maxFailures: 3, windowSeconds: 60 }, ...(extra['hooks'] as object | undefined) },
  });
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function pull(service: TestService, query: string, token = RELAY_TOKEN, target = 'laptop'): Promise<Answer> {
  const response = await fetch(`${service.hooksUrl}/relay/${target}/events?${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

async function ack(service: TestService, body: unknown, token = RELAY_TOKEN): Promise<Answer> {
  const response = await fetch(`${service.hooksUrl}/relay/laptop/ack`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

type Events = Array<{ id: string; deliveries: number; leaseUntil: string; document: Record<string, unknown> }>;

/** Resolves once a pull of `consumer` reached the edge (it records the consumer before it waits). */
function seen(service: TestService, consumer: string): Promise<void> {
  return until(() => service.db.prepare('SELECT 1 FROM relay_consumers WHERE consumer = ?').get(consumer) !== undefined);
}

describe('the pull API of a relay target', () => {
  it('holds a forwarded action until a consumer pulls it: the http target’s document, id = run id, then acknowledged once', async () => {
    svc = await edge();
    const accepted = await post(`${svc.hooksUrl}/agent`, { message: 'deploy failed', name: 'CI', sessionKey: 'hook:ci' });
    expect(accepted.status).toBe(202);
    const runId = accepted.body.runId as string;
    const pulled = await pull(svc, 'consumer=laptop-1&max=5');
    expect(pulled.status).toBe(200);
    expect(pulled.headers.get('cache-control')).toBe('no-store');
    expect(pulled.body.backlog).toBe(1);
    const [event] = pulled.body.events as Events;
    expect(event).toMatchObject({ id: runId, deliveries: 1 });
    expect(Date.parse(event?.leaseUntil ?? '')).toBeGreaterThan(Date.now());
    expect(event?.document).toMatchObject({ type: 'hookgate.action.v1', id: runId, kind: 'agent', name: 'CI', untrusted: true, origin: { mappingId: null, path: 'agent', scheme: 'token', verified: false } });
    expect(String(event?.document['message'])).toMatch(/^SECURITY NOTICE[\s\S]*\ndeploy failed\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>$/);
    const first = await ack(svc, { consumer: 'laptop-1', ids: [runId, 'no-such-id'] });
    expect(first.body).toEqual({ ok: true, results: [{ id: runId, result: 'acked' }, { id: 'no-such-id', result: 'unknown' }] });
    expect((await ack(svc, { consumer: 'laptop-1', ids: [runId] })).body).toEqual({ ok: true, results: [{ id: runId, result: 'already-acked' }] });
    const view = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } }).then((response) => response.json() as Promise<{ run: Record<string, unknown> }>);
    expect(view.run).toMatchObject({ status: 'ok', kind: 'relay', attempts: 1, handoff: { target: 'laptop', consumer: 'laptop-1' } });
    expect((await pull(svc, 'consumer=laptop-1')).body).toEqual({ ok: true, events: [], backlog: 0 });
  });

  it('refuses the hook token and the gateway token (403), a wrong token (401, counted until the client is blocked), another target’s token (403), an unknown target (404)', async () => {
    svc = await edge();
    const hook = await pull(svc, 'consumer=a', TEST_TOKEN);
    expect([hook.status, hook.body.code]).toEqual([403, 'RELAY_TOKEN_REQUIRED']);
    expect((await pull(svc, 'consumer=a', GATEWAY_TOKEN)).status).toBe(403);
    expect((await pull(svc, 'consumer=a', OTHER_TOKEN)).body.code).toBe('RELAY_TOKEN_REQUIRED');
    expect((await ack(svc, { consumer: 'a', ids: [] }, TEST_TOKEN)).status).toBe(403);
    expect((await pull(svc, 'consumer=a', RELAY_TOKEN, 'nowhere')).body.code).toBe('NOT_FOUND');
    expect((await pull(svc, 'consumer=a', RELAY_TOKEN)).status).toBe(200);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const wrong = await pull(svc, 'consumer=a', 'relay-token-guessed-000000000');
      expect([wrong.status, wrong.body.code, wrong.headers.get('www-authenticate')]).toEqual([401, 'UNAUTHORIZED', 'Bearer']);
    }
    const blocked = await pull(svc, 'consumer=a', RELAY_TOKEN);
    expect([blocked.status, blocked.body.code]).toEqual([429, 'TOO_MANY_AUTH_FAILURES']);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(svc.rawLogs()).not.toContain(RELAY_TOKEN);
  });

  it('refuses a pull without a consumer or with a wait or max out of bounds, and an ack that is not one (400 RELAY_REQUEST_INVALID); a HEAD leases nothing', async () => {
    svc = await edge();
    const accepted = await post(`${svc.hooksUrl}/agent`, { message: 'kept' });
    const head = await fetch(`${svc.hooksUrl}/relay/laptop/events?consumer=a`, { method: 'HEAD', headers: { authorization: `Bearer ${RELAY_TOKEN}` } });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET']);
    const options = await fetch(`${svc.hooksUrl}/relay/laptop/events`, { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET']);
    expect(((await pull(svc, 'consumer=b')).body.events as Events).map((event) => [event.id, event.deliveries])).toEqual([[accepted.body.runId, 1]]);
    for (const query of ['wait=1', 'consumer=a&wait=56', 'consumer=a&max=0', 'consumer=a&max=101', 'consumer=a%20b', 'consumer=a&consumer=b']) {
      const answer = await pull(svc, query);
      expect([query, answer.status, answer.body.code]).toEqual([query, 400, 'RELAY_REQUEST_INVALID']);
    }
    for (const body of [{ ids: ['x'] }, { consumer: 'a', ids: 'x' }, { consumer: 'a', ids: [], extra: 1 }, { consumer: 'a', ids: [], refused: [{ id: 'x' }] }]) {
      const answer = await ack(svc, body);
      expect([answer.status, answer.body.code]).toEqual([400, 'RELAY_REQUEST_INVALID']);
    }
  });

  it('answers a waiting pull as soon as an event arrives, and hands an unacknowledged event to another consumer after the lease', async () => {
    svc = await edge({}, { leaseSeconds: 1 });
    const started = Date.now();
    const waiting = pull(svc, 'consumer=a&wait=55');
    await seen(svc, 'a');
    const accepted = await post(`${svc.hooksUrl}/agent`, { message: 'now', sessionKey: 'hook:x' });
    const answered = await waiting;
    expect(Date.now() - started).toBeLessThan(50_000);
    expect((answered.body.events as Events).map((event) => event.id)).toEqual([accepted.body.runId]);
    expect((await pull(svc, 'consumer=b')).body.events).toEqual([]);
    const again = await pull(svc, 'consumer=b&wait=30');
    expect((again.body.events as Events).map((event) => [event.id, event.deliveries])).toEqual([[accepted.body.runId, 2]]);
    expect((await ack(svc, { consumer: 'a', ids: [accepted.body.runId] })).body.results).toEqual([{ id: accepted.body.runId, result: 'not-leased' }]);
  });

  it('ends a waiting pull when the server shuts down: 503 SHUTTING_DOWN, and the shutdown does not wait for it', async () => {
    svc = await edge();
    const service = svc;
    const waiting = pull(service, 'consumer=a&wait=55');
    await seen(service, 'a');
    const closed = service.close();
    svc = undefined;
    const answer = await waiting;
    expect([answer.status, answer.body.code]).toEqual([503, 'SHUTTING_DOWN']);
    await closed;
  });

  it('counts the backlog toward maxQueued: past it a sender gets 503 with Retry-After, and what was acknowledged stays', async () => {
    svc = await edge({ defaults: { maxQueued: 2 } });
    const first = await post(`${svc.hooksUrl}/agent`, { message: 'one' });
    const second = await post(`${svc.hooksUrl}/agent`, { message: 'two' });
    const third = await post(`${svc.hooksUrl}/agent`, { message: 'three' });
    expect([first.status, second.status, third.status]).toEqual([202, 202, 503]);
    expect(third.body.code).toBe('SERVER_BUSY');
    const events = (await pull(svc, 'consumer=a')).body.events as Events;
    expect(events.map((event) => event.id)).toEqual([first.body.runId, second.body.runId]);
  });
});
