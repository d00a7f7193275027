import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createTargets } from '../../src/forward/index.js';
import { silentLogger } from '../../src/log.js';
import { createEdgeApi } from '../../src/relay/client/edge-api.js';
import { runConsumer, type ConsumerEnd } from '../../src/relay/client/consumer.js';
import type { RelayProgress } from '../../src/relay/client/progress.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { until } from '../helpers/wait.js';
import { startFakeService, type Answer, type FakeService } from '../channels/fake-service.js';
import { RECEIVER_SECRET } from './processes.js';

const RELAY_TOKEN = 'relay-token-laptop-0123456789';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function edge(laptop: Record<string, unknown> = {}): Promise<TestService> {
  const svc = await startTestService({ targets: { laptop: { kind: 'relay', tokens: [RELAY_TOKEN], ...laptop } }, agents: { defaults: { forward: 'laptop' } } });
  cleanups.push(() => svc.close());
  return svc;
}

async function receiver(answer: (id: string, seen: number) => Answer | Promise<Answer>): Promise<FakeService & { ids: string[] }> {
  const ids: string[] = [];
  const service = await startFakeService((request) => {
    const id = String(request.headers['webhook-id']);
    ids.push(id);
    return answer(id, ids.filter((each) => each === id).length);
  });
  cleanups.push(() => service.close());
  return Object.assign(service, { ids });
}

const quiet: RelayProgress = { pulled: () => undefined, handed: () => undefined, ackNote: () => undefined, unavailable: () => undefined, stopped: () => undefined };

/** One in-process consumer of the edge's relay target `laptop`, handing to an http target at `inbox`; stopped after the test. */
function consume(svc: TestService, inbox: string, consumer: string, handed: string[] = []): Promise<ConsumerEnd> {
  const stop = new AbortController();
  const targets = createTargets({ home: { kind: 'http', url: inbox, secret: RECEIVER_SECRET, retry: { minDelaySeconds: 0.05 } } }, { fetch: globalThis.fetch, logger: silentLogger() });
  const target = targets.get('home') as Parameters<typeof runConsumer>[0]['target'];
  const api = createEdgeApi({ from: svc.hooksUrl, target: 'laptop', token: RELAY_TOKEN, consumer, fetch: globalThis.fetch });
  const progress: RelayProgress = { ...quiet, handed: (event, outcome) => void (outcome.kind === 'taken' && handed.push(event.id)) };
  const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);
  const running = runConsumer({ api, target, waitSeconds: 5, max: 2, progress, now: Date.now, sleep, signal: stop.signal });
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  return running;
}

async function runView(svc: TestService, runId: string): Promise<Record<string, unknown>> {
  const answer = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return ((await answer.json()) as { run: Record<string, unknown> }).run;
}

describe('the relay consumer loop', () => {
  it('shares a target between two consumers: while one is held up by its gateway, the other takes the other sessions’ events', async () => {
    const svc = await edge();
    let releaseFirst = (): void => undefined;
    const held = new Promise<void>((resolve) => (releaseFirst = resolve));
    const inbox = await receiver(async (_id, seen) => {
      if (inbox.ids.length === 1 && seen === 1) await held;
      return { status: 202, json: {} };
    });
    const runIds: string[] = [];
    for (let index = 0; index < 8; index += 1) runIds.push((await post(`${svc.hooksUrl}/agent`, { message: `event ${index}`, sessionKey: `hook:s${index % 4}` })).body.runId as string);
    const [byA, byB] = [[] as string[], [] as string[]];
    void consume(svc, `${inbox.baseUrl}/inbox`, 'a', byA);
    await until(() => inbox.ids.length === 1);
    void consume(svc, `${inbox.baseUrl}/inbox`, 'b', byB);
    // a pulled events 0 and 1 (sessions s0, s1) and is stuck on 0; b takes the sessions nobody holds
    // (s2, s3), while the later events of s0 and s1 wait for a, in their order.
    await until(() => byB.length === 4);
    expect(byB).toEqual([runIds[2], runIds[3], runIds[6], runIds[7]]);
    releaseFirst();
    await until(() => new Set(inbox.ids).size === 8);
    expect(inbox.ids.indexOf(runIds[0] as string)).toBeLessThan(inbox.ids.indexOf(runIds[4] as string));
    expect(inbox.ids.indexOf(runIds[1] as string)).toBeLessThan(inbox.ids.indexOf(runIds[5] as string));
    await until(async () => (await Promise.all(runIds.map((id) => runView(svc, id)))).every((run) => run['status'] === 'ok'));
    expect(inbox.ids).toHaveLength(8);
  });

  it('tries a gateway that answers 503 again under the same id and acknowledges once it took it; reports one that refuses (400) to the edge', async () => {
    const svc = await edge();
    const inbox = await receiver((_id, seen) => (inbox.ids.length === 1 ? { status: 400, json: { error: 'no such agent' } } : seen === 1 ? { status: 503, headers: { 'retry-after': '0' }, json: {} } : { status: 202, json: {} }));
    const refused = (await post(`${svc.hooksUrl}/agent`, { message: 'refused', sessionKey: 'hook:r' })).body.runId as string;
    const retried = (await post(`${svc.hooksUrl}/agent`, { message: 'retried', sessionKey: 'hook:t' })).body.runId as string;
    void consume(svc, `${inbox.baseUrl}/inbox`, 'a');
    await until(async () => (await runView(svc, retried))['status'] === 'ok');
    expect(inbox.ids).toEqual([refused, retried, retried]);
    expect(await runView(svc, refused)).toMatchObject({ status: 'error', kind: 'relay', error: 'consumer a: local target "home" answered 400: no such agent' });
    expect(await runView(svc, retried)).toMatchObject({ status: 'ok', attempts: 1, handoff: { target: 'laptop', consumer: 'a' } });
  });

  it('ends at a refusal asking again cannot change (a wrong token) instead of retrying forever', async () => {
    const svc = await edge();
    const api = createEdgeApi({ from: svc.hooksUrl, target: 'laptop', token: 'not-a-relay-token-000000', consumer: 'a', fetch: globalThis.fetch });
    const target = createTargets({ home: { kind: 'http', url: 'http://127.0.0.1:9/inbox', secret: RECEIVER_SECRET } }, { fetch: globalThis.fetch, logger: silentLogger() }).get('home') as Parameters<typeof runConsumer>[0]['target'];
    const end = await runConsumer({ api, target, waitSeconds: 1, max: 1, progress: quiet, now: Date.now, sleep: async () => undefined, signal: new AbortController().signal });
    expect(end).toEqual({ kind: 'refused', status: 401, code: 'UNAUTHORIZED', message: 'invalid relay token' });
  });
});
