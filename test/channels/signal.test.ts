import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { signalChannel } from '../../src/channels/signal.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const ACCOUNT = '+4915112345678';
const RECIPIENT = '+4917687654321';

/** signal-cli-rest-api /v2/send: 201 { timestamp } or 400 { error }; a proxy in front may answer 429/503. */
function signalApi(state: { unavailable: number }) {
  return (request: Recorded): Answer => {
    if (request.method !== 'POST' || request.path !== '/v2/send') return { status: 404, text: '404 page not found' };
    if (!String(request.headers['content-type']).startsWith('application/json')) return { status: 400, json: { error: "Couldn't process request - invalid request" } };
    if (state.unavailable > 0) {
      state.unavailable -= 1;
      return { status: 503, headers: { 'retry-after': '4' }, text: 'Service Unavailable' };
    }
    const body = bodyOf(request);
    const recipients = body['recipients'];
    if (!Array.isArray(recipients) || recipients.length === 0) return { status: 400, json: { error: "Couldn't process request - please provide at least one recipient" } };
    if (body['number'] !== ACCOUNT) return { status: 400, json: { error: 'User +490000 is not registered.' } };
    if (recipients[0] !== RECIPIENT) return { status: 400, json: { error: 'Failed to send message: Unregistered user' } };
    return { status: 201, json: { timestamp: '1700000000000' } };
  };
}

describe('signal channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(unavailable = 0) {
    service = await startFakeService(signalApi({ unavailable }));
    return { service, channel: signalChannel.create({ baseUrl: service.baseUrl, account: ACCOUNT }, testDeps()) };
  }

  it('sends message, number and recipients to /v2/send', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, RECIPIENT, 'hello')).toEqual({ status: 'delivered', channel: 'signal', to: RECIPIENT, parts: 1, attempts: 1 });
    expect(bodyOf(service.requests[0])).toEqual({ message: 'hello', number: ACCOUNT, recipients: [RECIPIENT] });
  });

  it('splits replies at 2000 characters', async () => {
    const { service, channel } = await setUp();
    const text = longText(8, 40);
    expect(await deliverText(channel, RECIPIENT, text)).toMatchObject({ status: 'delivered' });
    const sent = service.requests.map((request) => String(bodyOf(request)['message']));
    expect(sent.every((part) => part.length <= 2000)).toBe(true);
    expect(words(sent.join(' '))).toEqual(words(text));
  });

  it('retries a 503 after its Retry-After', async () => {
    const { channel } = await setUp(1);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, RECIPIENT, 'hi', { sleep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([4000]);
  });

  it('fails at once on a 400 with the error text', async () => {
    const { channel } = await setUp();
    const outcome = await deliverText(channel, '+1555', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'signal: Failed to send message: Unregistered user (HTTP 400)' });
  });
});
