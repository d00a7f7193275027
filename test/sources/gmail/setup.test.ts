import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../../src/config/load.js';
import { runGmailSetup } from '../../../src/commands/gmail-setup.js';
import { GMAIL_PUBLISHER } from '../../../src/sources/gmail/setup/cloud.js';
import { startFakeGoogle, type FakeGoogle } from './fake-google.js';

describe('hookgate gmail setup', () => {
  let fake: FakeGoogle;
  let dir: string;
  let configPath: string;
  let out: string;
  let err: string;

  const CONFIG = (endpoints: string) => `// Hookgate for the household
{
  gateway: { port: 8787 }, // keep this port
  hooks: {
    enabled: true,
    token: 'hook-token-for-tests', // rotate yearly
    /* presets we use */
    presets: [],
    gmail: {
      model: 'echo/echo', // cheap model for mail
      endpoints: ${endpoints},
    },
  },
}
`;

  beforeEach(async () => {
    fake = await startFakeGoogle();
    dir = mkdtempSync(join(tmpdir(), 'hookgate-setup-'));
    configPath = join(dir, 'hookgate.json5');
    const endpoints = `{ gmail: '${fake.url}', pubsub: '${fake.url}', oauthToken: '${fake.url}/token', oidcCerts: '${fake.url}/oauth2/v3/certs' }`;
    writeFileSync(configPath, CONFIG(endpoints));
    writeFileSync(
      join(dir, 'client_secret.json'),
      JSON.stringify({ installed: { client_id: 'desktop-client.apps.googleusercontent.com', client_secret: 'desktop-secret', auth_uri: `${fake.url}/o/oauth2/v2/auth`, token_uri: `${fake.url}/token`, redirect_uris: ['http://localhost'] } }),
    );
    out = '';
    err = '';
  });
  afterEach(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const io = () => ({ stdout: (text: string) => void (out += text), stderr: (text: string) => void (err += text), env: {}, cwd: dir });
  const consentUrl = () => new URL(/(http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+)/.exec(out)?.[1] ?? 'http://missing/');
  /** The user pastes the address the browser ended on (the refused loopback redirect). */
  const pasteRedirect = async () => `http://127.0.0.1:1/?state=${consentUrl().searchParams.get('state')}&code=good-code&scope=gmail.readonly`;
  const setup = (...extra: string[]) =>
    runGmailSetup(['--account', fake.account, '--project', 'demo', '--client-secret', 'client_secret.json', '--config', configPath, ...extra], io(), { prompt: pasteRedirect });

  it('runs consent, creates the topic, grant, subscription and watch, and writes hooks.gmail keeping comments', async () => {
    chmodSync(configPath, 0o640);
    expect(await setup('--no-browser')).toBe(0);
    expect(statSync(configPath).mode & 0o777).toBe(0o640);
    expect(err).toBe('');
    expect(out).toContain(`✓ refresh token stored in ${join(dir, 'gmail-credentials.json')}`);
    expect(out).toContain('✓ topic projects/demo/topics/hookgate-gmail created');
    expect(out).toContain(`✓ granted roles/pubsub.publisher on the topic to ${GMAIL_PUBLISHER}`);
    expect(out).toContain('✓ subscription projects/demo/subscriptions/hookgate-gmail-pull created (pull)');
    expect(out).toContain('✓ Gmail watch on INBOX publishes to the topic');

    const auth = consentUrl().searchParams;
    expect(auth.get('access_type')).toBe('offline');
    expect(auth.get('code_challenge_method')).toBe('S256');
    expect(auth.get('scope')).toContain('https://www.googleapis.com/auth/gmail.readonly');
    const exchange = fake.tokenRequests.find((form) => form.get('grant_type') === 'authorization_code');
    expect(exchange?.get('code_verifier')).toMatch(/^[\w.~-]{43,128}$/);

    expect(fake.policies.get('projects/demo/topics/hookgate-gmail')?.bindings).toEqual([{ role: 'roles/pubsub.publisher', members: [GMAIL_PUBLISHER] }]);
    expect(fake.subscriptions.get('projects/demo/subscriptions/hookgate-gmail-pull')).toMatchObject({ topic: 'projects/demo/topics/hookgate-gmail', ackDeadlineSeconds: 60 });
    expect(fake.watches).toEqual([{ topicName: 'projects/demo/topics/hookgate-gmail', labelIds: ['INBOX'], labelFilterBehavior: 'include' }]);

    const credentials = join(dir, 'gmail-credentials.json');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(credentials, 'utf8'))).toMatchObject({ type: 'authorized_user', refresh_token: 'refresh-from-code-1', account: fake.account });

    const written = readFileSync(configPath, 'utf8');
    for (const comment of ['// Hookgate for the household', '// keep this port', '// rotate yearly', '/* presets we use */', '// cheap model for mail']) expect(written).toContain(comment);
    expect(written).not.toContain('refresh-from-code');
    expect(written).not.toContain('desktop-secret');
    const config = await loadConfigFile(configPath, {});
    expect(config.hooks.presets).toEqual(['gmail']);
    expect(config.hooks.gmail).toMatchObject({
      enabled: true,
      account: fake.account,
      label: 'INBOX',
      topic: 'projects/demo/topics/hookgate-gmail',
      subscription: 'projects/demo/subscriptions/hookgate-gmail-pull',
      mode: 'pull',
      model: 'echo/echo',
      credentialsFile: credentials,
      includeBody: true,
      maxBytes: 20000,
    });
  });

  it("takes the account and the topic (with its project) from the config's hooks.gmail block when the command line leaves them out", async () => {
    const text = readFileSync(configPath, 'utf8').replace("model: 'echo/echo',", `model: 'echo/echo', account: '${fake.account}', topic: 'projects/household-mail/topics/mail-in',`);
    writeFileSync(configPath, text);
    const code = await runGmailSetup(['--client-secret', 'client_secret.json', '--config', configPath, '--no-browser'], io(), { prompt: pasteRedirect });
    expect([code, err]).toEqual([0, '']);
    expect(out).toContain("✓ account and topic taken from the config's hooks.gmail block (the command line wins)");
    expect(out).toContain('✓ topic projects/household-mail/topics/mail-in created');
    expect(fake.watches).toEqual([{ topicName: 'projects/household-mail/topics/mail-in', labelIds: ['INBOX'], labelFilterBehavior: 'include' }]);
  });

  it('changes nothing when run again, and says so step by step', async () => {
    expect(await setup('--no-browser')).toBe(0);
    const config = readFileSync(configPath, 'utf8');
    const changes = () => fake.calls.filter((call) => call.startsWith('PUT ') || call.endsWith(':setIamPolicy') || call.endsWith(':modifyPushConfig')).length;
    const before = changes();
    out = '';
    expect(await setup()).toBe(0);
    expect(changes()).toBe(before);
    expect(readFileSync(configPath, 'utf8')).toBe(config);
    expect(out).toContain('✓ stored credentials for me@example.com reused');
    expect(out).toContain('✓ topic projects/demo/topics/hookgate-gmail exists');
    expect(out).toContain(`✓ ${GMAIL_PUBLISHER} already has roles/pubsub.publisher on the topic`);
    expect(out).toContain('✓ subscription projects/demo/subscriptions/hookgate-gmail-pull exists (pull)');
    expect(out).toContain('already has these hooks.gmail settings');
  });

  it('asks for consent again when the stored grant was revoked', async () => {
    expect(await setup('--no-browser')).toBe(0);
    fake.revoked.add('refresh-from-code-1');
    out = '';
    expect(await setup('--no-browser')).toBe(0);
    expect(out).toContain('the stored grant for me@example.com was revoked or expired: asking for consent again');
    expect(fake.tokenRequests.filter((form) => form.get('grant_type') === 'authorization_code')).toHaveLength(2);
  });

  it('receives the code on a loopback redirect when a browser is used', async () => {
    const running = setup();
    let redirected: Response | undefined;
    for (let tries = 0; redirected === undefined && tries < 2000; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (!out.includes('/o/oauth2/v2/auth?')) continue;
      const auth = consentUrl().searchParams;
      redirected = await fetch(`${auth.get('redirect_uri')}?state=${auth.get('state')}&code=good-code`);
    }
    expect(redirected?.status).toBe(200);
    expect(await running).toBe(0);
    expect(fake.tokenRequests.find((form) => form.get('grant_type') === 'authorization_code')?.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('sets up push with an OIDC token to the endpoint and writes push.path and audience', async () => {
    const endpoint = 'https://hooks.example.com/hooks/gmail/push';
    const code = await setup('--no-browser', '--mode', 'push', '--push-endpoint', endpoint, '--push-service-account', 'pusher@demo.iam.gserviceaccount.com');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(fake.subscriptions.get('projects/demo/subscriptions/hookgate-gmail-push')).toMatchObject({
      pushConfig: { pushEndpoint: endpoint, oidcToken: { serviceAccountEmail: 'pusher@demo.iam.gserviceaccount.com', audience: endpoint } },
    });
    const config = await loadConfigFile(configPath, {});
    expect(config.hooks.gmail).toMatchObject({ mode: 'push', push: { path: '/gmail/push', audience: endpoint, serviceAccountEmail: 'pusher@demo.iam.gserviceaccount.com' } });
  });

  it('stops at a refused step, names the missing permission and leaves the config alone', async () => {
    fake.refusals.set('PUT /v1/projects/demo/topics/', { status: 403, googleStatus: 'PERMISSION_DENIED', message: "User not authorized to perform this action." });
    const before = readFileSync(configPath, 'utf8');
    expect(await setup('--no-browser')).toBe(1);
    expect(err).toContain('Pub/Sub topic failed: PUT');
    expect(err).toContain('403 PERMISSION_DENIED: User not authorized to perform this action.');
    expect(err).toContain('pubsub.topics.create');
    expect(readFileSync(configPath, 'utf8')).toBe(before);
  });

  it('names the API to enable when Google says it is disabled', async () => {
    fake.refusals.set('GET /v1/projects/demo/topics/', { status: 403, googleStatus: 'PERMISSION_DENIED', message: 'Cloud Pub/Sub API has not been used in project demo before or it is disabled.', reason: 'SERVICE_DISABLED' });
    expect(await setup('--no-browser')).toBe(1);
    expect(err).toContain('enable the API: https://console.cloud.google.com/apis/library/pubsub.googleapis.com?project=demo');
  });
});
