import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { schemeConfig, signAs } from '../helpers/signature-fixtures.js';

const SECRET = 'twilio-auth-token-0123456789';
const FORM = 'application/x-www-form-urlencoded';

/**
 * Twilio signs the URL and the form fields once decoded and sorted, not the bytes sent, and sends no
 * timestamp: every spelling of one signed request must be the same delivery (one run), and a body
 * whose decoded bytes are not UTF-8 (where `%FF` and `%FE` read alike) must not verify at all.
 */
describe('a captured Twilio request sent again in another spelling', () => {
  let svc: TestService;
  beforeAll(async () => {
    const mapping = { id: 'sms', match: { path: 'twilio' }, action: 'wake', wakeMode: 'next-heartbeat', textTemplate: 'sms {{MessageSid}}: {{Body}}', signature: schemeConfig('twilio', { secret: SECRET }) };
    svc = await startTestService({ hooks: { throttle: { maxFailures: 1000, windowSeconds: 60 }, mappings: [mapping] } });
  });
  afterAll(async () => {
    await svc.close();
  });

  const texts = (sid: string) =>
    svc.db
      .prepare('SELECT text FROM events ORDER BY id')
      .all()
      .map((row) => (row as { text: string }).text)
      .filter((text) => text.includes(`sms ${sid}:`));

  async function post(body: Buffer | string, signatureHeaders: Record<string, string>, delivery: string) {
    const headers = { 'content-type': FORM, ...signatureHeaders, 'i-twilio-idempotency-token': delivery };
    const response = await fetch(`${svc.hooksUrl}/twilio`, { method: 'POST', headers, body });
    const text = await response.text();
    return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
  }

  it('answers each re-encoding of one signed form as a replay and makes no new run', async () => {
    const original = 'ToCountry=US&SmsStatus=received&Body=Deploy+the+fix&From=%2B15550002222&To=%2B15550001111&MessageSid=SM1';
    const signed = await signAs('twilio', SECRET, Buffer.from(original), 0, 'first');
    const first = await post(original, signed.headers, 'first');
    expect([first.status, first.replayed]).toEqual([200, false]);
    const spellings = {
      reordered: 'MessageSid=SM1&To=%2B15550001111&From=%2B15550002222&Body=Deploy+the+fix&SmsStatus=received&ToCountry=US',
      'space as %20': 'ToCountry=US&SmsStatus=received&Body=Deploy%20the%20fix&From=%2B15550002222&To=%2B15550001111&MessageSid=SM1',
      'a letter percent-encoded': 'ToCountry=%55S&SmsStatus=received&Body=Deploy+the+fix&From=%2B15550002222&To=%2B15550001111&MessageSid=SM1',
      'a trailing &': `${original}&`,
      'lower-case hex': 'ToCountry=US&SmsStatus=received&Body=Deploy+the+fix&From=%2b15550002222&To=%2b15550001111&MessageSid=SM1',
    };
    for (const [name, body] of Object.entries(spellings)) {
      const again = await post(body, signed.headers, `again-${name}`);
      expect([name, again.status, again.replayed]).toEqual([name, 200, true]);
    }
    expect(texts('SM1')).toEqual([expect.stringContaining('sms SM1: Deploy the fix')]);
  });

  it('refuses form fields that are not UTF-8 once decoded (%FF, %FE, a raw 0xFF byte) with 401, storing nothing', async () => {
    const signed = await signAs('twilio', SECRET, Buffer.from('Body=%FF&MessageSid=SM2'), 0, 'bad');
    const bodies: Array<Buffer | string> = ['Body=%FF&MessageSid=SM2', 'Body=%FE&MessageSid=SM2', Buffer.concat([Buffer.from('Body='), Buffer.from([0xff]), Buffer.from('&MessageSid=SM2')])];
    for (const [index, body] of bodies.entries()) {
      const refused = await post(body, signed.headers, `bad-${index}`);
      expect([index, refused.status, refused.body?.['code']]).toEqual([index, 401, 'SIGNATURE_INVALID']);
      expect(refused.body?.['error']).toMatch(/not UTF-8/);
    }
    expect(texts('SM2')).toEqual([]);
    const genuine = 'Body=Gr%C3%BC%C3%9Fe+%F0%9F%91%8B&MessageSid=SM3';
    const accepted = await post(genuine, (await signAs('twilio', SECRET, Buffer.from(genuine), 0, 'utf8')).headers, 'utf8');
    expect(accepted.status).toBe(200);
    expect(texts('SM3')).toEqual([expect.stringContaining('sms SM3: Grüße 👋')]);
  });
});
