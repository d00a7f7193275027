import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { startFakeService, type Answer, type FakeService, type Recorded } from '../channels/fake-service.js';

const SECRET = `whsec_${Buffer.from('e2e secret of the http target!!!').toString('base64')}`;

let svc: TestService | undefined;
let receiver: FakeService | undefined;
afterEach(async () => {
  await svc?.close();
  await receiver?.close();
  svc = undefined;
  receiver = undefined;
});

interface Delivery {
  at: number;
  id: string;
  timestamp: number;
  document: Record<string, unknown>;
}

/**
 * An agent's inbox as its author would write it with the standardwebhooks library: every POST is
 * verified (a bad one would be refused) and recorded; the first delivery of each action is
 * answered 503 with Retry-After: 2, later ones 200 with the receiver's own run id.
 */
async function inbox(): Promise<{ deliveries: Delivery[]; refused: number }> {
  const state = { deliveries: [] as Delivery[], refused: 0 };
  receiver = await startFakeService((request: Recorded): Answer => {
    let document: Record<string, unknown>;
    try {
      document = new Webhook(SECRET).verify(request.text, request.headers as Record<string, string>) as Record<string, unknown>;
    } catch {
      state.refused += 1;
      return { status: 401, json: { error: 'bad signature' } };
    }
    const id = String(request.headers['webhook-id']);
    const earlier = state.deliveries.filter((delivery) => delivery.id === id).length;
    state.deliveries.push({ at: Date.now(), id, timestamp: Number(request.headers['webhook-timestamp']), document });
    if (document['type'] === 'hookgate.action.v1' && earlier === 0) return { status: 503, headers: { 'retry-after': '2' }, json: { error: 'warming up' } };
    return { status: 200, json: { runId: `inbox-run-${state.deliveries.length}` } };
  });
  return state;
}

describe('an http target (Standard Webhooks)', () => {
  it('gets one action per request under a webhook-id that stays the same across a 503 + Retry-After: 2, the second attempt at least 2 s later, then the callback', async () => {
    const state = await inbox();
    svc = await startTestService({
      targets: { inbox: { kind: 'http', url: `${receiver?.baseUrl}/inbox`, secret: SECRET } },
      hooks: { mappings: [{ id: 'ci', match: { path: 'ci' }, action: 'agent', messageTemplate: 'Build {{build}} failed', forward: 'inbox', callback: 'inbox' }] },
    });
    const answer = await post(`${svc.hooksUrl}/ci`, { build: 42 });
    expect(answer.status).toBe(202);
    const runId = answer.body.runId as string;
    await until(() => state.deliveries.some((delivery) => delivery.document['type'] === 'hookgate.run.finished.v1'), 30_000);
    expect(state.refused).toBe(0);
    const actions = state.deliveries.filter((delivery) => delivery.document['type'] === 'hookgate.action.v1');
    expect(actions.map((delivery) => delivery.id)).toEqual([runId, runId]);
    const [first, second] = actions as [Delivery, Delivery];
    expect(second.at - first.at).toBeGreaterThanOrEqual(2000);
    expect(second.timestamp - first.timestamp).toBeGreaterThanOrEqual(2);
    expect(second.document).toEqual(first.document);
    expect(first.document).toMatchObject({ id: runId, kind: 'agent', untrusted: true, origin: { mappingId: 'ci', path: 'ci', scheme: 'token', verified: false } });
    expect(String(first.document['message'])).toMatch(/^SECURITY NOTICE[\s\S]*\n---\nBuild 42 failed\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>$/);
    const callback = state.deliveries.find((delivery) => delivery.document['type'] === 'hookgate.run.finished.v1');
    expect(callback?.id).not.toBe(runId);
    expect(callback?.document).toMatchObject({ runId, status: 'ok', target: { name: 'inbox', status: 200, runId: 'inbox-run-2' } });
    const view = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: 'Bearer test-hook-token-0123456789' } }).then((response) => response.json() as Promise<{ run: unknown }>);
    expect(view.run).toMatchObject({ status: 'ok', kind: 'forward', attempts: 2, handoff: { target: 'inbox', status: 200, runId: 'inbox-run-2' } });
  });

  it('sends the callback of a run that ran here with its status and reply', async () => {
    const state = await inbox();
    svc = await startTestService({
      targets: { inbox: { kind: 'http', url: `${receiver?.baseUrl}/inbox`, secret: SECRET } },
      hooks: { mappings: [{ id: 'ask', match: { path: 'ask' }, action: 'agent', messageTemplate: 'What is {{q}}?', deliver: false, callback: 'inbox' }] },
    });
    const answer = await post(`${svc.hooksUrl}/ask`, { q: 'two plus two' });
    const runId = answer.body.runId as string;
    await until(() => state.deliveries.length > 0, 30_000);
    expect(state.deliveries).toHaveLength(1);
    const { document } = state.deliveries[0] as Delivery;
    expect(document).toMatchObject({ type: 'hookgate.run.finished.v1', runId, status: 'ok', origin: { mappingId: 'ask', path: 'ask', scheme: 'token', verified: false, deliveryId: null } });
    expect(document['reply']).toBe('Echo: What is two plus two?');
    expect(Date.parse(String(document['endedAt']))).toBeGreaterThanOrEqual(Date.parse(String(document['startedAt'])));
  });
});
