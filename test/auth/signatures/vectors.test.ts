import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { compileSignature, type CompiledSignature } from '../../../src/auth/signatures/index.js';
import type { SignatureConfig } from '../../../src/config/signature-schema.js';

function scheme(config: SignatureConfig): CompiledSignature {
  return compileSignature(config).signature as CompiledSignature;
}

// Published examples: a round trip against our own signer would pass with the base string, the
// key decoding or the encoding wrong; reproducing the providers' documented values would not.
describe('providers\' published signature examples', () => {
  it('Standard Webhooks test vector (secret whsec_MfKQ…, msg_p5jX…, 1614265330)', async () => {
    const signature = scheme({ scheme: 'standard-webhooks', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const body = Buffer.from('{"test": 2432232314}');
    expect(await signature.scheme.verify(signature.settings, { body, headers, query: '', nowSeconds: 1614265330 })).toEqual({ ok: true, timestamp: 1614265330 });
    const svix = { 'svix-id': headers['webhook-id'], 'svix-timestamp': headers['webhook-timestamp'], 'svix-signature': `v1,bm9wZQ== ${headers['webhook-signature']}` };
    expect((await signature.scheme.verify(signature.settings, { body, headers: svix, query: '', nowSeconds: 1614265330 })).ok).toBe(true);
    const signed = await signature.scheme.sign?.(signature.settings, body, 1614265330, 'msg_p5jXN8AQM9LWM0D4loKWxJek');
    expect(signed?.headers['webhook-signature']).toBe(headers['webhook-signature']);
  });

  it("Slack's worked example (api.slack.com/authentication/verifying-requests-from-slack)", async () => {
    const signature = scheme({ scheme: 'slack', secret: '8f742231b10e8888abcd99yyyzzz85a5' });
    const body = Buffer.from(
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    const headers = { 'x-slack-request-timestamp': '1531420618', 'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503' };
    expect(await signature.scheme.verify(signature.settings, { body, headers, query: '', nowSeconds: 1531420618 + 60 })).toEqual({ ok: true, timestamp: 1531420618 });
  });

  it("GitHub's documented example (secret \"It's a Secret to Everybody\", body \"Hello, World!\")", async () => {
    const signature = scheme({ scheme: 'github', secret: "It's a Secret to Everybody" });
    const headers = { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' };
    expect((await signature.scheme.verify(signature.settings, { body: Buffer.from('Hello, World!'), headers, query: '', nowSeconds: 0 })).ok).toBe(true);
  });
});

// Stripe publishes no body/secret/header triple, so its own SDK is the independent signer and verifier.
describe('stripe against the stripe SDK (stripe-node)', () => {
  const secret = 'whsec_test_secret';
  const body = '{\n  "id": "evt_test_webhook",\n  "object": "event"\n}';
  const signature = scheme({ scheme: 'stripe', secret });

  it('accepts the headers the SDK signs a minute later, at two timestamps', async () => {
    for (const timestamp of [12345, 1_700_000_000]) {
      const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
      const request = { body: Buffer.from(body), headers: { 'stripe-signature': header }, query: '', nowSeconds: timestamp + 60 };
      expect(await signature.scheme.verify(signature.settings, request)).toEqual({ ok: true, timestamp });
    }
  });

  it('signs the same header as the SDK for the same body, secret and time', async () => {
    const signed = (await signature.scheme.sign?.(signature.settings, Buffer.from(body), 12345, 'evt_test_webhook'))?.headers ?? {};
    expect(signed['Stripe-Signature']).toBe(Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: 12345 }));
    expect(signed['Stripe-Signature']).toBe('t=12345,v1=2672d138c9a412830f3bfe2ecc5bfb3277cf6f5b49d0119d77dd6cb64da1257e');
  });

  it('produces headers the SDK\'s own verification accepts, and refuses what the SDK refuses', async () => {
    const signed = (await signature.scheme.sign?.(signature.settings, Buffer.from(body), 1_700_000_000, 'evt_test_webhook'))?.headers ?? {};
    const header = signed['Stripe-Signature'] ?? '';
    expect(Stripe.webhooks.constructEvent(body, header, secret, 300, undefined, 1_700_000_000).id).toBe('evt_test_webhook');
    const otherSecret = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_other', timestamp: 1_700_000_000 });
    expect(() => Stripe.webhooks.constructEvent(body, otherSecret, secret, 300, undefined, 1_700_000_000)).toThrow();
    const request = { body: Buffer.from(body), headers: { 'stripe-signature': otherSecret }, query: '', nowSeconds: 1_700_000_000 };
    expect(await signature.scheme.verify(signature.settings, request)).toEqual({ ok: false, reason: 'mismatch' });
  });
});

describe('shopify against the Shopify API library\'s test vector', () => {
  // Shopify/shopify-app-js, packages/apps/shopify-api/lib/webhooks/__tests__ (apiSecretKey "test_secret_key").
  const body = Buffer.from('{"foo": "bar"}');
  const published = 'B23tXN681gZ0qIWNRrgtzBE9XSDo5yaUu6wfmhu3a7g=';

  it('verifies the published header and signs the same value', async () => {
    const signature = scheme({ scheme: 'shopify', secret: 'test_secret_key' });
    const headers = { 'x-shopify-hmac-sha256': published, 'x-shopify-webhook-id': '123456789' };
    expect(await signature.scheme.verify(signature.settings, { body, headers, query: '', nowSeconds: 0 })).toEqual({ ok: true, timestamp: undefined });
    expect((await signature.scheme.sign?.(signature.settings, body, 0, '123456789'))?.headers['X-Shopify-Hmac-Sha256']).toBe(published);
  });
});

// The generic scheme is each option applied to published values: senders that sign the body alone
// (GitHub, Shopify) and the HMAC standards' own test cases for the hashes those senders do not use.
describe('hmac against published values', () => {
  const cases: Array<{ name: string; config: SignatureConfig & { header: string }; body: string; value: string }> = [
    {
      name: "GitHub's documented example (sha256, hex, prefix sha256=)",
      config: { scheme: 'hmac', secret: "It's a Secret to Everybody", header: 'X-Hub-Signature-256', prefix: 'sha256=' },
      body: 'Hello, World!',
      value: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    },
    {
      name: 'the Shopify library\'s vector (sha256, base64)',
      config: { scheme: 'hmac', secret: 'test_secret_key', header: 'X-Shopify-Hmac-Sha256', encoding: 'base64' },
      body: '{"foo": "bar"}',
      value: 'B23tXN681gZ0qIWNRrgtzBE9XSDo5yaUu6wfmhu3a7g=',
    },
    {
      name: 'RFC 2202 test case 2 (sha1, hex)',
      config: { scheme: 'hmac', secret: 'Jefe', header: 'x-signature', algorithm: 'sha1' },
      body: 'what do ya want for nothing?',
      value: 'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79',
    },
    {
      name: 'RFC 4231 test case 2 (sha512, hex)',
      config: { scheme: 'hmac', secret: 'Jefe', header: 'x-signature', algorithm: 'sha512' },
      body: 'what do ya want for nothing?',
      value: '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    },
  ];

  it.each(cases)('$name: verifies the published value and signs the same', async ({ config, body, value }) => {
    const signature = scheme(config);
    const header = config.header.toLowerCase();
    const request = { body: Buffer.from(body), headers: { [header]: value }, query: '', nowSeconds: 0 };
    expect(await signature.scheme.verify(signature.settings, request)).toEqual({ ok: true, timestamp: undefined });
    expect(await signature.scheme.sign?.(signature.settings, Buffer.from(body), 0, 'unused')).toEqual({ headers: { [header]: value } });
  });
});
