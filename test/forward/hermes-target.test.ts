import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { hermesTarget } from '../../src/forward/targets/hermes.js';
import { startFakeService, type FakeService } from '../channels/fake-service.js';
import { sealedAgent } from './actions.js';
import { hermesRoute } from './hermes-route.js';

const SECRET = 'hermes-route-secret-1';
let hermes: FakeService | undefined;
afterEach(async () => {
  await hermes?.close();
  hermes = undefined;
});

async function route(options: { events?: string[]; nowSeconds?: () => number } = {}) {
  const fake = hermesRoute({ route: 'github-pr', secret: SECRET, ...options });
  hermes = await startFakeService(fake.handler);
  return fake;
}

function target(secret = SECRET, now?: () => number) {
  const config = { kind: 'hermes' as const, url: `${(hermes as FakeService).baseUrl}/webhooks/github-pr`, secret };
  return hermesTarget.create('hermes', config, { fetch: globalThis.fetch, logger: silentLogger(), ...(now === undefined ? {} : { now }) });
}

const handOff = (client: ReturnType<typeof target>, id: string) => client.handOff?.({ id, action: sealedAgent('PR #3 opened'), signal: new AbortController().signal });

describe('the hermes target, against a route verifying as Hermes\' webhook adapter does', () => {
  it('is accepted: signed with the route secret (generic V2), the document as payload, the run id as delivery id', async () => {
    const fake = await route();
    expect(await handOff(target(), 'run-1')).toEqual({ kind: 'accepted', status: 202 });
    expect(fake.dispatched).toHaveLength(1);
    expect(fake.dispatched[0]).toMatchObject({ deliveryId: 'run-1', event: 'hookgate.action.v1', payload: { type: 'hookgate.action.v1', id: 'run-1', kind: 'agent', untrusted: true } });
    expect(String(fake.dispatched[0]?.payload['message'])).toContain('PR #3 opened');
  });

  it('runs nothing twice: a resend of the same run is Hermes\' duplicate, accepted and noted', async () => {
    const fake = await route();
    await handOff(target(), 'run-1');
    const again = await handOff(target(), 'run-1');
    expect(again).toEqual({ kind: 'accepted', status: 200, notes: ['Hermes had this delivery already (its delivery id is the run id): nothing ran twice'] });
    expect(fake.dispatched).toHaveLength(1);
  });

  it('is refused with a wrong secret (401), and with a clock more than 300 s off (the route\'s replay window)', async () => {
    const fake = await route();
    expect(await handOff(target('another-secret'), 'run-1')).toEqual({ kind: 'refused', status: 401, reason: 'answered 401: Invalid signature' });
    const skewed = await handOff(target(SECRET, () => Date.now() - 301_000), 'run-2');
    expect(skewed).toMatchObject({ kind: 'refused', status: 401 });
    expect(fake.dispatched).toHaveLength(0);
  });

  it('notes a route whose `events` ignore the document', async () => {
    await route({ events: ['pull_request'] });
    expect(await handOff(target(), 'run-1')).toMatchObject({ kind: 'accepted', status: 200, notes: ["the route ignored it (its `events` or filter): Hermes runs nothing for it"] });
  });

  it('delivers a callback document the same way', async () => {
    const fake = await route();
    const answer = await target().deliver?.({ id: 'cb-1', document: { type: 'hookgate.run.finished.v1', runId: 'run-1', status: 'ok' }, signal: new AbortController().signal });
    expect(answer).toEqual({ kind: 'accepted', status: 202 });
    expect(fake.dispatched[0]).toMatchObject({ deliveryId: 'cb-1', event: 'hookgate.run.finished.v1' });
  });
});
