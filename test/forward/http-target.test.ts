import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { httpTarget } from '../../src/forward/targets/http.js';
import { startFakeService, type Answer, type FakeService, type Recorded } from '../channels/fake-service.js';
import { sealedAgent } from './actions.js';

const SECRET = `whsec_${Buffer.from('a 32-byte test secret for hooks!').toString('base64')}`;
let receiver: FakeService | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function target(config: { secret?: string; headers?: Record<string, string> } = {}) {
  const url = `${receiver?.baseUrl ?? 'http://127.0.0.1:1'}/inbox`;
  return httpTarget.create('inbox', { kind: 'http', url, secret: config.secret ?? SECRET, ...(config.headers === undefined ? {} : { headers: config.headers }) }, { fetch: globalThis.fetch, logger: silentLogger() });
}

/** What a receiver does with the standardwebhooks library: verify, then read the document. */
function verified(request: Recorded | undefined): Record<string, unknown> {
  return new Webhook(SECRET).verify(request?.text ?? '', request?.headers as Record<string, string>) as Record<string, unknown>;
}

describe('the http target', () => {
  it('posts the action document signed per Standard Webhooks, webhook-id = the run id; the receiver verifies it with standardwebhooks', async () => {
    receiver = await startFakeService((): Answer => ({ status: 200, json: { runId: 'agent-run-5' } }));
    const answer = await target({ headers: { authorization: 'Bearer receiver-token' } }).handOff?.({ id: 'run-1', action: sealedAgent('Deploy failed'), signal: new AbortController().signal });
    expect(answer).toEqual({ kind: 'accepted', status: 200, runId: 'agent-run-5' });
    const request = receiver.requests[0];
    expect(request?.headers).toMatchObject({ 'webhook-id': 'run-1', authorization: 'Bearer receiver-token', 'content-type': 'application/json' });
    expect(verified(request)).toMatchObject({ type: 'hookgate.action.v1', id: 'run-1', kind: 'agent', untrusted: true });
  });

  it('signs each attempt with its own timestamp, the same webhook-id', async () => {
    let now = Date.UTC(2026, 0, 1, 0, 0, 0);
    receiver = await startFakeService((): Answer => ({ status: 503 }));
    const client = httpTarget.create('inbox', { kind: 'http', url: `${receiver.baseUrl}/inbox`, secret: SECRET }, { fetch: globalThis.fetch, logger: silentLogger(), now: () => now });
    const send = () => client.handOff?.({ id: 'run-7', action: sealedAgent('x'), signal: new AbortController().signal });
    await send();
    now += 2500;
    await send();
    const [first, second] = receiver.requests;
    expect([first?.headers['webhook-id'], second?.headers['webhook-id']]).toEqual(['run-7', 'run-7']);
    expect(Number(second?.headers['webhook-timestamp']) - Number(first?.headers['webhook-timestamp'])).toBe(2);
    expect(first?.headers['webhook-signature']).not.toBe(second?.headers['webhook-signature']);
  });

  it('refuses a secret that is not base64, and headers that would replace the signature', () => {
    expect(() => target({ secret: 'not base64 !!' })).toThrow(ConfigError);
    expect(() => target({ headers: { 'Webhook-Signature': 'v1,forged' } })).toThrow(/header "Webhook-Signature" is set by Hookgate/);
  });
});
