import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { until as untilWithin } from '../../helpers/wait.js';
import { post, startTestService, type TestService } from '../../helpers/service.js';
import { startFakeGoogle, type FakeGoogle } from './fake-google.js';
import { gmailHarness, REFRESH_TOKEN, runsOf, type GmailHarness } from './support.js';

/** The machine may be busy: a generous bound, still failing a test whose condition never comes. */
const until = (check: () => boolean) => untilWithin(check, 30_000);

const AUDIENCE = 'https://hooks.example.com/hooks/gmail/push';
const PUSHER = 'gmail-push@demo.iam.gserviceaccount.com';
const KID = 'test-key-1';

describe('the Gmail watcher in push mode', () => {
  let fake: FakeGoogle;
  let harness: GmailHarness;
  let svc: TestService | undefined;
  let signingKey: CryptoKey;
  let otherKey: CryptoKey;

  beforeEach(async () => {
    fake = await startFakeGoogle();
    harness = await gmailHarness(fake);
    const pair = await generateKeyPair('RS256', { extractable: true });
    signingKey = pair.privateKey;
    otherKey = (await generateKeyPair('RS256')).privateKey;
    fake.jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' }] };
  });
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
    await fake.close();
    harness.cleanup();
  });

  const startPush = async () => {
    svc = await harness.start({ mode: 'push', subscription: undefined, push: { audience: AUDIENCE, serviceAccountEmail: PUSHER } });
    await until(() => fake.watches.length === 1);
    return svc;
  };

  type Claims = { iss?: string; aud?: string; email?: string; email_verified?: boolean; exp?: string | number };
  const token = (claims: Claims = {}, key: CryptoKey = signingKey) =>
    new SignJWT({ email: claims.email ?? PUSHER, email_verified: claims.email_verified ?? true })
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
      .setIssuer(claims.iss ?? 'https://accounts.google.com')
      .setAudience(claims.aud ?? AUDIENCE)
      .setSubject('112233445566')
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? '1h')
      .sign(key);

  const envelope = () => ({
    message: {
      data: Buffer.from(JSON.stringify({ emailAddress: fake.account, historyId: fake.historyId })).toString('base64'),
      messageId: '2070443601311540',
      message_id: '2070443601311540',
      publishTime: '2026-11-23T12:00:00.000Z',
    },
    subscription: 'projects/demo/subscriptions/gmail-watch-push',
  });

  const push = async (jwt: string | undefined, body: unknown = envelope()) =>
    post(`${svc!.hooksUrl}/gmail/push`, body, jwt === undefined ? { authorization: '' } : { authorization: `Bearer ${jwt}` });

  it('answers 204 only after the messages are admitted, one run each, with the JWKS fetched once per max-age', async () => {
    await startPush();
    fake.addMessage({ from: 'Ada <ada@example.com>', subject: 'Pushed', text: 'hello' });
    const first = await push(await token());
    expect(first.status).toBe(204);
    expect(runsOf(svc!).map((run) => run.message)).toEqual([expect.stringContaining('Subject: Pushed')]);
    fake.addMessage({ from: 'Ada <ada@example.com>', subject: 'Pushed again', text: 'hello' });
    expect((await push(await token())).status).toBe(204);
    expect((await push(await token())).status).toBe(204); // a redelivery: nothing new
    expect(runsOf(svc!)).toHaveLength(2);
    expect(fake.calls.filter((call) => call === 'GET /oauth2/v3/certs')).toHaveLength(1);
  });

  it('fetches the keys again once their Cache-Control max-age has passed', async () => {
    fake.jwksCacheSeconds = 0;
    await startPush();
    expect((await push(await token())).status).toBe(204);
    expect((await push(await token())).status).toBe(204);
    expect(fake.calls.filter((call) => call === 'GET /oauth2/v3/certs')).toHaveLength(2);
  });

  it.each<[string, () => Promise<string | undefined>]>([
    ['no token', async () => undefined],
    ['a wrong audience', () => token({ aud: 'https://elsewhere.example.com/push' })],
    ['a wrong issuer', () => token({ iss: 'https://evil.example.com' })],
    ['an expired token', () => token({ exp: Math.floor(Date.now() / 1000) - 3600 })],
    ['a bad signature', () => token({}, otherKey)],
    ['another service account', () => token({ email: 'someone@demo.iam.gserviceaccount.com' })],
    ['an unverified email', () => token({ email_verified: false })],
  ])('refuses %s with 401 and admits nothing', async (_, make) => {
    await startPush();
    fake.addMessage({ from: 'x@example.com', subject: 'Forged', text: 'x' });
    const response = await push(await make());
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ ok: false, code: 'UNAUTHORIZED' });
    expect(runsOf(svc!)).toHaveLength(0);
  });

  it('answers 503 while the store refuses, so Pub/Sub delivers again, then 204', async () => {
    await startPush();
    fake.addMessage({ from: 'x@example.com', subject: 'Retried', text: 'x' });
    await svc!.faults!.pragma('query_only', true);
    const refused = await push(await token());
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ ok: false, code: 'SOURCE_UNAVAILABLE' });
    await svc!.faults!.pragma('query_only', false);
    expect((await push(await token())).status).toBe(204);
    expect(runsOf(svc!)).toHaveLength(1);
  });

  it('stops the watcher with one clear error when the grant is revoked, answering 503 so nothing is lost', async () => {
    await startPush();
    fake.revoked.add(REFRESH_TOKEN);
    fake.invalidTokens.add('ya29.fake-1');
    fake.addMessage({ from: 'x@example.com', subject: 'Kept by Pub/Sub', text: 'x' });
    expect((await push(await token())).status).toBe(503);
    const again = await push(await token());
    expect(again.status).toBe(503);
    expect(again.body.error).toBe(`the Gmail watcher is stopped: Gmail access for ${fake.account} was revoked or has expired: run \`hookgate gmail setup\` again`);
    expect(svc!.logs.filter((line) => line['event'] === 'gmail.stopped')).toHaveLength(1);
    expect(runsOf(svc!)).toHaveLength(0);
    expect((await post(`${svc!.hooksUrl}/wake`, { text: 'still serving' })).status).toBe(200);
  });

  it('answers 400 to an envelope whose data is not a Gmail notification', async () => {
    await startPush();
    const response = await push(await token(), { message: { data: 'bm90IGpzb24=' }, subscription: 'projects/demo/subscriptions/x' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'INVALID_BODY', error: 'message.data is not base64-encoded JSON' });
  });

  it("answers 400 naming the push path to a push envelope posted to the preset's own path", async () => {
    await startPush();
    const response = await post(`${svc!.hooksUrl}/gmail`, envelope());
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('PUBSUB_PUSH_MISDIRECTED');
    expect(response.body.error).toContain('POST /hooks/gmail/push');
  });
  it('counts refused push tokens in the failed-auth throttle: once blocked, even a valid token gets 429', async () => {
    svc = await startTestService(
      { hooks: { presets: ['gmail'], throttle: { maxFailures: 3, windowSeconds: 60 }, gmail: harness.gmailConfig({ mode: 'push', subscription: undefined, push: { audience: AUDIENCE, serviceAccountEmail: PUSHER } }) } },
      { dir: harness.dir, gmail: { setTimer: harness.timers.setTimer, delay: () => new Promise((resolve) => setImmediate(resolve)) } },
    );
    await until(() => fake.watches.length === 1);
    const forged = await token({}, otherKey);
    const refused = [await push(undefined), await push(forged), await push(await token({ email: 'someone-else@other-project.iam.gserviceaccount.com' }))];
    expect(refused.map((response) => response.status)).toEqual([401, 401, 401]);
    const blocked = await push(await token());
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(runsOf(svc)).toEqual([]);
    expect(JSON.stringify(svc.logs)).not.toContain(forged);
  });

  it('refuses a Google-signed token of another service account with the right audience', async () => {
    await startPush();
    const response = await push(await token({ email: 'any-account@attacker-project.iam.gserviceaccount.com' }));
    expect(response.status).toBe(401);
    expect(svc!.logs.find((line) => line['event'] === 'gmail.push_refused')).toMatchObject({ reason: 'email is not the configured service account' });
  });
});
