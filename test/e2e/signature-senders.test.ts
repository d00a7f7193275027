import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { schemeConfig, sendSignedAs, signAs, type SendOptions } from '../helpers/signature-fixtures.js';
import { ConsoleClient, GATEWAY_TOKEN, startConsoleService } from '../console/support.js';

const SECRET = 'sender-test-secret-0123456789';

function mapping(scheme: string, extra: Record<string, unknown> = {}, signature: Record<string, unknown> = {}) {
  return { id: `m-${scheme}`, match: { path: scheme }, action: 'wake', wakeMode: 'next-heartbeat', textTemplate: 'event {{action}}', signature: { ...schemeConfig(scheme, { secret: SECRET }), ...signature }, ...extra };
}

const send = (svc: TestService, scheme: string, body: string, options: SendOptions = {}) => sendSignedAs(svc, scheme, body, { secret: SECRET, ...options });

function wakeTexts(svc: TestService): string[] {
  return svc.db.prepare('SELECT text FROM events ORDER BY id').all().map((row) => (row as { text: string }).text);
}

describe('senders with their own handshakes and body formats', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it("answers Meta's subscription GET with the challenge as text only for the right verify token, counting wrong ones as failed auth", async () => {
    svc = await startTestService({
      hooks: { throttle: { maxFailures: 2, windowSeconds: 600 }, mappings: [mapping('meta', {}, { verifyToken: 'meatyhamhock' }), mapping('github')] },
    });
    const get = (path: string, query: string) => fetch(`${svc?.hooksUrl}/${path}?${query}`);
    const ok = await get('meta', 'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock');
    expect([ok.status, ok.headers.get('content-type'), await ok.text()]).toEqual([200, 'text/plain; charset=utf-8', '1158201444']);
    const wrong = await get('meta', 'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess');
    expect([wrong.status, ((await wrong.json()) as { code: string }).code]).toEqual([403, 'SUBSCRIPTION_REFUSED']);
    expect((await get('meta', 'hub.mode=subscribe&hub.challenge=1&hub.verify_token=guess2')).status).toBe(403);
    expect((await get('meta', 'hub.mode=subscribe&hub.challenge=1&hub.verify_token=meatyhamhock')).status).toBe(429);
    // A GET that is no subscription check (a browser, a monitor) is not an auth failure: 405, uncounted.
    expect((await get('meta', '')).status).toBe(405);
    // Only a scheme with a subscription check answers GET; others stay POST-only.
    expect((await get('github', 'hub.mode=subscribe')).status).toBe(405);
    expect(wakeTexts(svc)).toEqual([]);
  });

  it('answers the subscription GET for the first mapping of a shared path whose verify token matches, and refuses when none does', async () => {
    const second = mapping('meta', { id: 'm-meta-two' }, { secret: 'second-app-secret-0123456789', verifyToken: 'second-app-token' });
    svc = await startTestService({
      hooks: { throttle: { maxFailures: 5, windowSeconds: 600 }, mappings: [mapping('github', { match: { path: 'meta' } }), mapping('meta', {}, { verifyToken: 'first-app-token' }), second] },
    });
    const get = (token: string) => fetch(`${svc?.hooksUrl}/meta?hub.mode=subscribe&hub.challenge=2021&hub.verify_token=${token}`);
    const confirmedBy = () => (svc?.logs ?? []).filter((line) => line['event'] === 'hook.subscription_confirmed').map((line) => line['mappingId']);
    const forSecond = await get('second-app-token');
    expect([forSecond.status, await forSecond.text()]).toEqual([200, '2021']);
    const forFirst = await get('first-app-token');
    expect([forFirst.status, await forFirst.text()]).toEqual([200, '2021']);
    expect(confirmedBy()).toEqual(['m-meta-two', 'm-meta']);
    const neither = await get('no-app-token');
    expect([neither.status, ((await neither.json()) as { code: string }).code]).toEqual([403, 'SUBSCRIPTION_REFUSED']);
  });

  it('answers a Meta GET with 403 when the mapping has no verifyToken', async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('meta')] } });
    const response = await fetch(`${svc.hooksUrl}/meta?hub.mode=subscribe&hub.challenge=1&hub.verify_token=x`);
    expect(response.status).toBe(403);
  });

  it("answers Discord's interaction PING with {\"type\":1} and a Webhook Events PING with 204, after the signature, with no action", async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('discord', { textTemplate: 'cmd {{data.name}}' })] } });
    const ping = await send(svc, 'discord', '{"id":"787053080478613555","token":"ThisIsATokenFromDiscordThatIsVeryLong","type":1,"version":1}');
    expect([ping.status, ping.body]).toEqual([200, { type: 1 }]);
    const eventsPing = await send(svc, 'discord', '{"version":1,"application_id":"1234560123453231555","type":0}');
    expect([eventsPing.status, eventsPing.body]).toEqual([204, null]);
    const forged = await send(svc, 'discord', '{"id":"1","token":"t","type":1,"version":1}', { secret: 'another key pair' });
    expect(forged.status).toBe(401);
    const command = await send(svc, 'discord', '{"id":"787053080478613556","token":"ThisIsATokenFromDiscordThatIsVeryLong","type":2,"version":1,"data":{"id":"787053080478613554","name":"test"}}');
    expect(command.status).toBe(200);
    expect(wakeTexts(svc)).toHaveLength(1);
    expect(wakeTexts(svc)[0]).toContain('cmd test');
  });

  it("verifies a Twilio SMS form against the configured publicUrl, and refuses it when Twilio called another URL", async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('twilio', { textTemplate: 'sms from {{From}}: {{Body}}' })] } });
    const form = 'ToCountry=US&SmsStatus=received&Body=Deploy+the+fix&From=%2B15550002222&To=%2B15550001111&MessageSid=SM1';
    const response = await send(svc, 'twilio', form, { contentType: 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(200);
    expect(wakeTexts(svc).join('\n')).toContain('sms from +15550002222: Deploy the fix');
    const elsewhere = await signAs('twilio', SECRET, Buffer.from(form), 0, 'x', { publicUrl: 'https://other.example.com/hooks/twilio' });
    const refused = await fetch(`${svc.hooksUrl}/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...elsewhere.headers }, body: form });
    expect(refused.status).toBe(401);
  });

  it('accepts a GitLab token delivery and refuses a wrong token, a GitLab body being unsigned', async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('gitlab', { textTemplate: 'gitlab {{object_kind}}' })] } });
    expect((await send(svc, 'gitlab', '{"object_kind":"push"}')).status).toBe(200);
    expect((await send(svc, 'gitlab', '{"object_kind":"push","n":2}', { secret: 'not-the-token' })).status).toBe(401);
    expect(wakeTexts(svc).join('')).toContain('gitlab push');
  });
});

describe('signature headers in the console request log (showPayloads)', () => {
  it("redacts every scheme's signature headers and each hmac mapping's configured header", async () => {
    const svc = await startConsoleService({
      gateway: { auth: { token: GATEWAY_TOKEN }, console: { showPayloads: true } },
      hooks: {
        mappings: [
          mapping('shopify'),
          mapping('hmac', {}, { header: 'X-Custom-Mac' }),
          { id: 'greeter', match: { path: 'greet' }, action: 'agent', name: 'Greeter', messageTemplate: 'Say hi to {{who}}' },
        ],
      },
    });
    try {
      const shopify = await send(svc, 'shopify', '{"action":"shop"}');
      const custom = await send(svc, 'hmac', '{"action":"custom"}', { config: { header: 'X-Custom-Mac' } });
      // The hmac mapping's header sent to another hook: still a signature, still redacted.
      const elsewhere = await fetch(`${svc.hooksUrl}/greet`, { method: 'POST', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', 'x-custom-mac': 'mac-value-elsewhere' }, body: '{"who":"Ada"}' });
      expect([shopify.status, custom.status, elsewhere.status]).toEqual([200, 200, 202]);
      const client = await ConsoleClient.login(svc);
      const response = await client.get('/api/requests');
      const byHook = new Map((response.body.requests as Array<{ hook: string; headers: Record<string, string> }>).map((entry) => [entry.hook, entry.headers]));
      expect(byHook.get('shopify')?.['x-shopify-hmac-sha256']).toBe('[redacted]');
      expect(byHook.get('hmac')?.['x-custom-mac']).toBe('[redacted]');
      expect(byHook.get('greet')?.['x-custom-mac']).toBe('[redacted]');
      expect(byHook.get('shopify')?.['x-shopify-topic']).toBe('orders/create');
      expect(response.text).not.toContain('mac-value-elsewhere');
    } finally {
      await svc.close();
    }
  });
});
