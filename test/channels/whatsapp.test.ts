import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { whatsappChannel } from '../../src/channels/whatsapp.js';
import { bodyOf, longText, recordingSleep, startFakeService, testDeps, wholeStep, words, type Answer, type FakeService, type Recorded } from './fake-service.js';

const TOKEN = 'EAAG-whatsapp-secret';
const PHONE_NUMBER_ID = '106540352242922';
const RECIPIENT = '4915112345678';

function graphError(status: number, code: number, message: string, details?: string): Answer {
  return {
    status,
    json: { error: { message, type: 'OAuthException', code, ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}), fbtrace_id: 'Az1' } },
  };
}

/** Cloud API /{phone-number-id}/messages; throughput limits come as code 130429 (HTTP 400 on Graph). */
function cloudApi(state: { throttled: number }) {
  return (request: Recorded): Answer => {
    if (request.method !== 'POST' || request.path !== `/v21.0/${PHONE_NUMBER_ID}/messages`) return graphError(400, 100, 'Unsupported post request.');
    if (request.headers.authorization !== `Bearer ${TOKEN}`) return graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');
    const body = bodyOf(request);
    if (body['messaging_product'] !== 'whatsapp') return graphError(400, 100, 'The parameter messaging_product is required.');
    if (state.throttled > 0) {
      state.throttled -= 1;
      return graphError(400, 130429, '(#130429) Rate limit hit', 'Cloud API message throughput has been reached.');
    }
    if (body['type'] !== 'text') return graphError(400, 100, 'Invalid parameter');
    const text = body['text'] as { body?: unknown } | undefined;
    if (typeof text?.body !== 'string' || text.body.length > 4096) return graphError(400, 100, 'Param text[body] must be at most 4096 characters long.');
    if (body['to'] !== RECIPIENT) return graphError(400, 131030, '(#131030) Recipient phone number not in allowed list', 'Recipient phone number not in allowed list');
    return { status: 200, json: { messaging_product: 'whatsapp', contacts: [{ input: RECIPIENT, wa_id: RECIPIENT }], messages: [{ id: 'wamid.HBgL' }] } };
  };
}

describe('whatsapp channel', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  async function setUp(throttled = 0) {
    service = await startFakeService(cloudApi({ throttled }));
    const config = { phoneNumberId: PHONE_NUMBER_ID, accessToken: TOKEN, baseUrl: `${service.baseUrl}/v21.0` };
    return { service, channel: whatsappChannel.create(config, testDeps()) };
  }

  it('sends a text message with messaging_product, to and text.body; a leading + is dropped', async () => {
    const { service, channel } = await setUp();
    expect(await deliverText(channel, `+${RECIPIENT}`, 'hi')).toMatchObject({ status: 'delivered', parts: 1, attempts: 1 });
    expect(bodyOf(service.requests[0])).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: RECIPIENT,
      type: 'text',
      text: { body: 'hi', preview_url: false },
    });
  });

  it('splits replies at 4096 characters', async () => {
    const { service, channel } = await setUp();
    const text = longText(30, 40);
    expect(await deliverText(channel, RECIPIENT, text)).toMatchObject({ status: 'delivered' });
    expect(service.requests.length).toBeGreaterThan(1);
    expect(words(service.requests.map((request) => String((bodyOf(request)['text'] as { body: string }).body)).join(' '))).toEqual(words(text));
  });

  it('retries the throughput error 130429 even though Graph sends it as HTTP 400', async () => {
    const { channel } = await setUp(1);
    const { sleep, waits } = recordingSleep();
    expect(await deliverText(channel, RECIPIENT, 'hi', { sleep, baseDelayMs: 250, random: wholeStep })).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(waits).toEqual([250]);
  });

  it('fails at once on a recipient error with message, details and code', async () => {
    const { channel } = await setUp();
    const outcome = await deliverText(channel, '15550001111', 'hi', { sleep: recordingSleep().sleep });
    expect(outcome).toMatchObject({
      status: 'failed',
      attempts: 1,
      reason: 'whatsapp: (#131030) Recipient phone number not in allowed list: Recipient phone number not in allowed list [code 131030] (HTTP 400)',
    });
  });
});
