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
    expect(await signature.scheme.verify(signature.settings, { body, headers, nowSeconds: 1614265330 })).toEqual({ ok: true, timestamp: 1614265330 });
    const svix = { 'svix-id': headers['webhook-id'], 'svix-timestamp': headers['webhook-timestamp'], 'svix-signature': `v1,bm9wZQ== ${headers['webhook-signature']}` };
    expect((await signature.scheme.verify(signature.settings, { body, headers: svix, nowSeconds: 1614265330 })).ok).toBe(true);
    const signed = await signature.scheme.sign(signature.settings, body, 1614265330, 'msg_p5jXN8AQM9LWM0D4loKWxJek');
    expect(signed['webhook-signature']).toBe(headers['webhook-signature']);
  });

  it("Slack's worked example (api.slack.com/authentication/verifying-requests-from-slack)", async () => {
    const signature = scheme({ scheme: 'slack', secret: '8f742231b10e8888abcd99yyyzzz85a5' });
    const body = Buffer.from(
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    const headers = { 'x-slack-request-timestamp': '1531420618', 'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503' };
    expect(await signature.scheme.verify(signature.settings, { body, headers, nowSeconds: 1531420618 + 60 })).toEqual({ ok: true, timestamp: 1531420618 });
  });

  it("GitHub's documented example (secret \"It's a Secret to Everybody\", body \"Hello, World!\")", async () => {
    const signature = scheme({ scheme: 'github', secret: "It's a Secret to Everybody" });
    const headers = { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' };
    expect((await signature.scheme.verify(signature.settings, { body: Buffer.from('Hello, World!'), headers, nowSeconds: 0 })).ok).toBe(true);
  });
});
