import { createHmac, createPrivateKey, sign as ed25519Sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileSignature, SIGNATURE_SCHEMES, type CompiledSignature } from '../../../src/auth/signatures/index.js';
import type { SignatureConfig } from '../../../src/config/signature-schema.js';

const FIXTURES = new URL('../../fixtures/signatures/', import.meta.url);

function scheme(config: SignatureConfig): CompiledSignature {
  const { signature, problems } = compileSignature(config);
  expect(problems).toEqual([]);
  return signature as CompiledSignature;
}

async function verify(signature: CompiledSignature, body: Buffer | string, headers: Record<string, string>, nowSeconds = 0, query = '') {
  return signature.scheme.verify(signature.settings, { body: Buffer.from(body), headers, query, nowSeconds });
}

// Values the providers (or their SDKs' tests) published, collected with their sources in the shared corpus.
describe('published vectors of the newer schemes', () => {
  it("PagerDuty: go-pagerduty's webhookv3 test (valid, another signature, empty header)", async () => {
    const body = readFileSync(new URL('pagerduty-incident.priority_updated.json', FIXTURES));
    const signature = scheme({ scheme: 'pagerduty', secret: 'lDQHScfUeXUKaQRNF+8XIiDKZ7XX3itBAYzwU0TARw8lJqRnkKl2iB1anSb0Z+IK' });
    const valid = 'v1=0c0b9495b893a39e70d1fea2fe11fbe0a825f88b9f67846f6cc07dd2bc5476cd';
    const other = 'v1=7020c8a7ec668a9b7012bc3dd82e483394b038f4230acc6785efbf2a7d8bcaf5';
    expect(await verify(signature, body, { 'x-pagerduty-signature': valid })).toEqual({ ok: true, timestamp: undefined });
    expect(await verify(signature, body, { 'x-pagerduty-signature': `${other},${valid}` })).toEqual({ ok: true, timestamp: undefined });
    expect(await verify(signature, body, { 'x-pagerduty-signature': other })).toEqual({ ok: false, reason: 'mismatch' });
    expect(await verify(signature, body, { 'x-pagerduty-signature': '' })).toEqual({ ok: false, reason: 'missing' });
    expect(signature.scheme.eventType?.({}, JSON.parse(body.toString()) as Record<string, unknown>)).toBe('incident.priority_updated');
  });

  it("Twilio: every twilio-node validation vector (ports, credentials, special characters, repeated params, bodySHA256)", async () => {
    const { vectors } = JSON.parse(readFileSync(new URL('twilio-vectors.json', FIXTURES), 'utf8')) as {
      vectors: Array<{ name: string; auth_token: string; url: string; params: Record<string, string | string[]>; body?: string; expected_header: string }>;
    };
    expect(vectors).toHaveLength(13);
    for (const vector of vectors) {
      const at = vector.url.indexOf('?');
      const signature = scheme({ scheme: 'twilio', secret: vector.auth_token, publicUrl: vector.url.slice(0, at) });
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(vector.params)) for (const item of [value].flat()) form.append(name, item);
      const body = vector.body ?? form.toString();
      const headers = { 'x-twilio-signature': vector.expected_header };
      expect(await verify(signature, body, headers, 0, vector.url.slice(at + 1)), vector.name).toMatchObject({ ok: true, timestamp: undefined });
      expect((await verify(signature, `${body}x`, headers, 0, vector.url.slice(at + 1))).ok, vector.name).toBe(false);
    }
  });

  it('Twilio: a JSON body whose bodySHA256 does not match is refused even with the URL signed', async () => {
    const signature = scheme({ scheme: 'twilio', secret: '12345', publicUrl: 'https://mycompany.com/myapp.php' });
    const query = 'foo=1&bar=2&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620';
    const headers = { 'x-twilio-signature': 'a9nBmqA0ju/hNViExpshrM61xv4=' };
    expect((await verify(signature, '{"property": "value", "boolean": true}', headers, 0, query)).ok).toBe(true);
    expect(await verify(signature, '{"property": "value", "boolean": false}', headers, 0, query)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it("Linear: the SDK test's body and secret (webhookTimestamp fixed at 1700000000000 ms)", async () => {
    const body = readFileSync(new URL('linear-comment.create.json', FIXTURES));
    const signature = scheme({ scheme: 'linear', secret: 'SECRET' });
    const headers = { 'linear-signature': '9c34e3128d6cd5e6599e7f719eb87d4f6003c713d153ba2bb2e35ae13a654459' };
    expect(await verify(signature, body, headers, 1_700_000_000 + 30)).toEqual({ ok: true, timestamp: 1_700_000_000 });
    expect(await verify(signature, body, headers, 1_700_000_000 + 301)).toEqual({ ok: false, reason: 'expired' });
    expect(signature.scheme.eventType?.({}, JSON.parse(body.toString()) as Record<string, unknown>)).toBe('Comment.create');
    // The unsigned Linear-Timestamp header cannot move the window.
    expect(await verify(signature, body, { ...headers, 'linear-timestamp': String((1_700_000_000 + 301) * 1000) }, 1_700_000_000 + 301)).toEqual({ ok: false, reason: 'expired' });
  });

  it('Discord: the RFC 8032 test-1 key pair over discord-interactions-js bodies (constructed vectors)', async () => {
    const signature = scheme({ scheme: 'discord', publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a' });
    const ping = '{"id":"787053080478613555","token":"ThisIsATokenFromDiscordThatIsVeryLong","type":1,"version":1}';
    const headers = {
      'x-signature-timestamp': '1700000000',
      'x-signature-ed25519': 'f0bd878adcef1f6d475c9644421905bd02b5de38e0d3ecfc6f58a711962c69ccc8dd7c9db312f9bdf08b1e1b8182e27a844da728c5e0dbb5507bf9931c1ed80b',
    };
    expect(await verify(signature, ping, headers, 1_700_000_000)).toEqual({ ok: true, timestamp: 1_700_000_000 });
    expect(await verify(signature, ping, { ...headers, 'x-signature-timestamp': '1700000001' }, 1_700_000_000)).toEqual({ ok: false, reason: 'mismatch' });
    expect(signature.scheme.handshake?.({}, JSON.parse(ping) as Record<string, unknown>)).toEqual({ status: 200, body: { type: 1 } });
    expect(signature.scheme.eventType?.({}, JSON.parse(ping) as Record<string, unknown>)).toBe('ping');
    // The private key of RFC 8032 test 1 signs the same bytes to the same value: the vector is the algorithm's.
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
    expect(ed25519Sign(null, Buffer.from(`1700000000${ping}`), key).toString('hex')).toBe(headers['x-signature-ed25519']);
  });

  it("Zendesk: the documented secret, body and time, signed as timestamp + body (the current documented order)", async () => {
    const signature = scheme({ scheme: 'zendesk', secret: 'HRkRd4BeOAoUkfZr-mhauJT64rvBASlJRoIyPsd3zeA=' });
    const stamp = '2021-07-25T10:00:00Z';
    const now = Date.parse(stamp) / 1000;
    const current = { 'x-zendesk-webhook-signature-timestamp': stamp, 'x-zendesk-webhook-signature': 'Rry/4TtIdFyawtXXp8QdI6tlAUUQ/5kL1OTp5qo/ZIk=' };
    expect(await verify(signature, '{"say": "hello"}', current, now)).toEqual({ ok: true, timestamp: now });
    // The older page's value was computed over body + timestamp: refused.
    const older = { ...current, 'x-zendesk-webhook-signature': 'tRDSF7URY8BLCDlaBcQ7FHu051Zk+aAB0NKMP53teMw=' };
    expect(await verify(signature, '{"say": "hello"}', older, now)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('Meta: the documented subscription check (hub.challenge 1158201444, verify token meatyhamhock)', () => {
    const signature = scheme({ scheme: 'meta', secret: 'app-secret', verifyToken: 'meatyhamhock' });
    const check = (query: string) => signature.scheme.subscription?.(signature.settings, new URLSearchParams(query));
    expect(check('hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock')).toEqual({ ok: true, text: '1158201444' });
    expect(check('hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=wrong')).toEqual({ ok: false, reason: 'refused' });
    expect(check('hub.mode=unsubscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock')).toEqual({ ok: false, reason: 'malformed' });
    expect(check('hub.mode=subscribe&hub.challenge=%3Cscript%3E&hub.verify_token=meatyhamhock')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('GitLab: X-Gitlab-Token is the secret token itself, compared whole', async () => {
    const signature = scheme({ scheme: 'gitlab', secrets: ['new-token', 'old-token'] });
    expect((await verify(signature, '{}', { 'x-gitlab-token': 'old-token' })).ok).toBe(true);
    expect((await verify(signature, '{}', { 'x-gitlab-token': 'old-toke' })).ok).toBe(false);
    expect((await verify(signature, '{}', { 'x-gitlab-token': 'old-token ' })).ok).toBe(false);
  });
});

/**
 * Senders that publish no vector: each formula as its documentation states it, computed here with
 * node:crypto directly (not through the scheme's code), must verify.
 */
describe('documented formulas of senders without published vectors', () => {
  const body = '{"id":"n1","event_id":"e1","topic":"conversation.user.created","type":"deployment.created"}';
  const secret = 'documented-formula-secret';
  const hex = (algorithm: string, ...parts: string[]) => parts.reduce((mac, part) => mac.update(part), createHmac(algorithm, secret)).digest('hex');
  const b64 = (algorithm: string, ...parts: string[]) => parts.reduce((mac, part) => mac.update(part), createHmac(algorithm, secret)).digest('base64');
  const now = 1_760_000_000;
  const cases: Array<[string, Record<string, string>, Partial<SignatureConfig>?]> = [
    ['sentry', { 'sentry-hook-signature': hex('sha256', body) }],
    ['intercom', { 'x-hub-signature': `sha1=${hex('sha1', body)}` }],
    ['vercel', { 'x-vercel-signature': hex('sha1', body) }],
    ['meta', { 'x-hub-signature-256': `sha256=${hex('sha256', body)}` }],
    ['typeform', { 'typeform-signature': `sha256=${b64('sha256', body)}` }],
    ['jira', { 'x-hub-signature': `sha256=${hex('sha256', body)}` }],
    ['calendly', { 'calendly-webhook-signature': `t=${now},v1=${hex('sha256', `${now}.`, body)}` }],
  ];
  it.each(cases)('%s', async (name, headers) => {
    const signature = scheme({ scheme: name, secret });
    expect((await verify(signature, body, headers, now)).ok).toBe(true);
    expect((await verify(signature, `${body} `, headers, now)).ok).toBe(false);
  });

  it('twilio signs form fields sorted by name after the URL (the formula as Twilio documents it)', async () => {
    const signature = scheme({ scheme: 'twilio', secret, publicUrl: 'https://example.com/sms' });
    const form = 'To=%2B15550001111&From=%2B15550002222&Body=hi+there';
    const expected = createHmac('sha1', secret).update('https://example.com/sms?x=1Bodyhi thereFrom+15550002222To+15550001111').digest('base64');
    expect((await verify(signature, form, { 'x-twilio-signature': expected }, now, 'x=1')).ok).toBe(true);
  });

  it('twilio reports the text it signed, the same for every spelling of the form (the replay key digests it)', async () => {
    const signature = scheme({ scheme: 'twilio', secret, publicUrl: 'https://example.com/sms' });
    const text = 'https://example.com/sms?x=1Bodyhi thereFrom+15550002222To+15550001111';
    const headers = { 'x-twilio-signature': createHmac('sha1', secret).update(text).digest('base64') };
    for (const form of ['To=%2B15550001111&From=%2B15550002222&Body=hi+there', 'Body=hi%20there&From=%2b15550002222&To=%2B1555000111%31&']) {
      expect(await verify(signature, form, headers, now, 'x=1')).toEqual({ ok: true, timestamp: undefined, signedContent: text });
    }
  });

  it('twilio refuses form fields that are not UTF-8 once decoded (they would all read as U+FFFD), before any HMAC', async () => {
    const signature = scheme({ scheme: 'twilio', secret, publicUrl: 'https://example.com/sms' });
    const headers = { 'x-twilio-signature': createHmac('sha1', secret).update('https://example.com/smsBody\uFFFD').digest('base64') };
    for (const body of ['Body=%FF', 'Body=%fe', 'Body=%C3', 'Bo%E9dy=x', Buffer.from([0x42, 0x3d, 0xff])]) {
      expect(await verify(signature, body, headers, now)).toEqual({ ok: false, reason: 'undecodable' });
    }
    // A `%` that starts no escape stays text, as Twilio's libraries read it; so does a field that spells the reason.
    expect(await verify(signature, 'Body=100%', headers, now)).toEqual({ ok: false, reason: 'mismatch' });
    const spelled = { 'x-twilio-signature': createHmac('sha1', secret).update('https://example.com/smsundecodable').digest('base64') };
    expect((await verify(signature, 'undecod=able', spelled, now)).ok).toBe(true);
  });
});

describe('where each scheme reads the event type (for a mapping\'s events list)', () => {
  const cases: Array<[string, Record<string, string>, Record<string, unknown>, string | undefined]> = [
    ['github', { 'x-github-event': 'pull_request' }, { action: 'opened' }, 'pull_request.opened'],
    ['github', { 'x-github-event': 'push' }, {}, 'push'],
    ['stripe', {}, { type: 'invoice.payment_failed' }, 'invoice.payment_failed'],
    ['slack', {}, { type: 'event_callback', event: { type: 'app_mention' } }, 'app_mention'],
    ['shopify', { 'x-shopify-topic': 'orders/create' }, {}, 'orders/create'],
    ['gitlab', { 'x-gitlab-event': 'Merge Request Hook' }, { object_kind: 'merge_request', object_attributes: { action: 'open' } }, 'merge_request.open'],
    ['gitlab', {}, { event_name: 'project_create' }, 'project_create'],
    ['sentry', { 'sentry-hook-resource': 'issue' }, { action: 'resolved' }, 'issue.resolved'],
    ['twilio', {}, { SmsStatus: 'received', Body: 'hi' }, 'message.received'],
    ['twilio', {}, { CallStatus: 'ringing' }, 'call.ringing'],
    ['discord', {}, { id: '1', token: 't', type: 2 }, 'application_command'],
    ['discord', {}, { version: 1, type: 1, event: { type: 'ENTITLEMENT_CREATE' } }, 'ENTITLEMENT_CREATE'],
    ['zendesk', {}, { type: 'zen:event-type:ticket.created' }, 'ticket.created'],
    ['calendly', {}, { event: 'invitee.created' }, 'invitee.created'],
    ['intercom', {}, { topic: 'conversation.user.created' }, 'conversation.user.created'],
    ['vercel', {}, { type: 'deployment.error' }, 'deployment.error'],
    ['meta', {}, { object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages' }] }] }, 'whatsapp_business_account.messages'],
    ['typeform', {}, { event_type: 'form_response' }, 'form_response'],
    ['jira', {}, { webhookEvent: 'jira:issue_created' }, 'jira:issue_created'],
    ['hmac', {}, { type: 'x' }, undefined],
  ];
  it.each(cases)('%s %j %j → %s', (name, headers, payload, expected) => {
    const found = SIGNATURE_SCHEMES.find((scheme) => scheme.name === name);
    expect(found?.eventType?.(headers, payload)).toBe(expected);
  });
});
