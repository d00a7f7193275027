import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';

/**
 * Several signed mappings on one path, over real sockets: the door admits a request whose signature
 * verifies for any of them, and only the mappings it is authenticated for ever run.
 */

const SECRET_A = 'github-app-a-secret';
const SECRET_B = 'github-app-b-secret';
const WRONG = 'nobody-knows-this-secret';
const STRIPE_SECRET = 'whsec_c3RyaXBlLXNpZ25pbmctc2VjcmV0LWZvci10ZXN0cw==';

const github = (secret: string) => ({ scheme: 'github', secret });

/** Path `github`: app A's pushes, app B's everything, app A's issues, then a token-only catch-all. */
const SHARED_PATH = [
  { id: 'a-pushes', match: { path: 'github' }, action: 'wake', signature: github(SECRET_A), events: ['push'], textTemplate: 'a-push {{ref}}' },
  { id: 'b-all', match: { path: 'github' }, action: 'wake', signature: github(SECRET_B), textTemplate: 'b {{ref}}{{action}}' },
  { id: 'a-issues', match: { path: 'github' }, action: 'wake', signature: github(SECRET_A), events: ['issues'], textTemplate: 'a-issue {{action}}' },
  { id: 'token-wake', match: { path: 'github' }, action: 'wake', textTemplate: 'token {{ref}}{{action}}' },
];

function wakeTexts(svc: TestService): string[] {
  // Without the envelope's source line: the text the mapping's template rendered.
  return svc.db.prepare('SELECT text FROM events ORDER BY id').all().map((row) => String(row['text']).replace(/^\[Source: [^\]]*\] /, ''));
}

function idempotencyKeys(svc: TestService): string[] {
  return svc.db.prepare('SELECT key FROM idempotency ORDER BY created_at').all().map((row) => String(row['key']));
}

const signedGithub = (svc: TestService, secret: string, event: string, payload: Record<string, unknown>) =>
  sendSignedAs(svc, 'github', JSON.stringify(payload), { secret, path: 'github', headers: { 'X-GitHub-Event': event } });

async function withToken(svc: TestService, path: string, event: string, payload: Record<string, unknown>) {
  const response = await fetch(`${svc.hooksUrl}/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', 'x-github-event': event },
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('signed deliveries on a path several mappings share', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('admits a delivery signed only for a later mapping, by that mapping, never by the earlier one its events would fit', async () => {
    svc = await startTestService({ hooks: { mappings: SHARED_PATH } });
    const response = await signedGithub(svc, SECRET_B, 'push', { ref: 'main' });
    expect(response).toMatchObject({ status: 200, body: { ok: true, mode: 'now' } });
    expect(wakeTexts(svc)).toEqual(['b main']);
    // Its replay key is the verifying mapping's: a redelivery replays under b-all's key.
    expect(idempotencyKeys(svc)).toEqual([expect.stringMatching(/^signed-content:b-all:/)]);
    const ping = await signedGithub(svc, SECRET_B, 'ping', { zen: 'Design for failure.', hook_id: 7 });
    expect(ping).toMatchObject({ status: 200, body: { ok: true, ping: true } });
  });

  it('lets a delivery signed for the first mapping fall through only to mappings signed with the same secret', async () => {
    svc = await startTestService({ hooks: { mappings: SHARED_PATH } });
    expect(await signedGithub(svc, SECRET_A, 'push', { ref: 'dev' })).toMatchObject({ status: 200 });
    expect(await signedGithub(svc, SECRET_A, 'issues', { action: 'opened' })).toMatchObject({ status: 200 });
    // a-pushes and a-issues pass it over; b-all (another secret) and token-wake (no token) are never tried.
    // (Another body than the issue's: byte-identical signed bodies are one delivery, see docs/signatures.md.)
    expect(await signedGithub(svc, SECRET_A, 'pull_request', { action: 'opened', number: 5 })).toMatchObject({
      status: 200,
      body: { ok: true, skipped: 'event', event: 'pull_request.opened' },
    });
    expect(wakeTexts(svc)).toEqual(['a-push dev', 'a-issue opened']);
  });

  it('refuses the hook token alone where the first mapping requires a signature, as before', async () => {
    svc = await startTestService({ hooks: { mappings: SHARED_PATH } });
    expect(await withToken(svc, 'github', 'push', { ref: 'main' })).toEqual({ status: 401, body: { ok: false, error: 'missing signature (scheme github)', code: 'SIGNATURE_INVALID' } });
    expect(wakeTexts(svc)).toEqual([]);
  });

  it('lets a token-only request fall through past a signed mapping, never into it, and a signature past a token-only one', async () => {
    svc = await startTestService({
      hooks: {
        mappings: [
          { id: 'token-pushes', match: { path: 'mixed' }, action: 'wake', eventField: 'headers.x-github-event', events: ['push'], textTemplate: 'token-push {{ref}}' },
          { id: 'signed-all', match: { path: 'mixed' }, action: 'wake', signature: github(SECRET_A), textTemplate: 'signed {{ref}}{{action}}' },
          { id: 'token-rest', match: { path: 'mixed' }, action: 'wake', textTemplate: 'token-rest {{action}}' },
        ],
      },
    });
    expect(await withToken(svc, 'mixed', 'push', { ref: 'main' })).toEqual({ status: 200, body: { ok: true, mode: 'now' } });
    expect(await withToken(svc, 'mixed', 'issues', { action: 'opened' })).toEqual({ status: 200, body: { ok: true, mode: 'now' } });
    const signed = await sendSignedAs(svc, 'github', JSON.stringify({ ref: 'dev' }), { secret: SECRET_A, path: 'mixed', headers: { 'X-GitHub-Event': 'push' } });
    expect(signed).toMatchObject({ status: 200, body: { ok: true, mode: 'now' } });
    expect(wakeTexts(svc)).toEqual(['token-push main', 'token-rest opened', 'signed dev']);
  });

  it('refuses a delivery signed for no mapping with the first mapping\'s 401 and counts it in the throttle', async () => {
    svc = await startTestService({ hooks: { mappings: SHARED_PATH, throttle: { maxFailures: 2, windowSeconds: 600 } } });
    const refused = [await signedGithub(svc, WRONG, 'push', { ref: 'x' }), await signedGithub(svc, WRONG, 'issues', { action: 'opened' })];
    expect(refused.map(({ status, body }) => ({ status, body }))).toEqual([
      { status: 401, body: { ok: false, error: 'invalid signature (scheme github)', code: 'SIGNATURE_INVALID' } },
      { status: 401, body: { ok: false, error: 'invalid signature (scheme github)', code: 'SIGNATURE_INVALID' } },
    ]);
    const wrongToken = await fetch(`${svc.hooksUrl}/github`, { method: 'POST', headers: { authorization: 'Bearer not-the-token', 'content-type': 'application/json' }, body: '{}' });
    expect(wrongToken.status).toBe(429);
    expect((await signedGithub(svc, SECRET_B, 'push', { ref: 'main' })).status).toBe(429);
    expect(await svc.service.metrics.render()).toMatch(/hookgate_signature_failures_total\{scheme="github",reason="mismatch"\} 2/);
    expect(wakeTexts(svc)).toEqual([]);
  });

  it('answers a bad signature behind a first token mapping with its 401 and tells the operator, once per path, which mapping answered', async () => {
    svc = await startTestService({
      hooks: {
        mappings: [{ id: 'github', match: { path: 'github' }, action: 'wake', textTemplate: 'token {{action}}' }],
        presets: [{ name: 'github', secret: SECRET_A }],
      },
    });
    const forged = [await signedGithub(svc, WRONG, 'issues', { action: 'opened' }), await signedGithub(svc, WRONG, 'issues', { action: 'closed' })];
    // The sender learns nothing of the config: the first mapping's answer.
    expect(forged.map(({ status, body }) => ({ status, body }))).toEqual([
      { status: 401, body: { ok: false, error: 'missing hook token', code: 'UNAUTHORIZED' } },
      { status: 401, body: { ok: false, error: 'missing hook token', code: 'UNAUTHORIZED' } },
    ]);
    const notices = svc.logs.filter((line) => line['event'] === 'hook.signature_behind_token_mapping');
    expect(notices).toEqual([expect.objectContaining({ level: 40, hook: 'github', mappingId: 'github', signedMappings: expect.arrayContaining(['preset:github/issues']) })]);
    expect(String(notices[0]?.['msg'])).toContain('mapping "github" comes first on this path and takes the hook token');
    expect(svc.rawLogs()).not.toContain(SECRET_A);
    // A correct signature still reaches the preset.
    const signed = await signedGithub(svc, SECRET_A, 'issues', { action: 'opened', issue: { number: 1, title: 'T', user: { login: 'u', type: 'User' }, html_url: 'https://github.com/a/b/issues/1' }, repository: { full_name: 'a/b' }, sender: { login: 'u', type: 'User' } });
    expect(signed.status).toBe(202);
  });

  it('admits a Stripe delivery on a GitHub mapping\'s path, keyed by the Stripe event id that verified', async () => {
    svc = await startTestService({
      hooks: {
        mappings: [
          { id: 'gh', match: { path: 'billing' }, action: 'wake', signature: github(SECRET_A), textTemplate: 'gh {{action}}' },
          { id: 'stripe', match: { path: 'billing' }, action: 'wake', signature: { scheme: 'stripe', secret: STRIPE_SECRET }, textTemplate: 'stripe {{type}}' },
        ],
      },
    });
    const body = JSON.stringify({ id: 'evt_1', type: 'invoice.paid' });
    const now = Math.floor(Date.now() / 1000);
    const first = await sendSignedAs(svc, 'stripe', body, { secret: STRIPE_SECRET, path: 'billing', at: now });
    // Stripe signs its retry anew: another timestamp and signature, the same event id.
    const retry = await sendSignedAs(svc, 'stripe', body, { secret: STRIPE_SECRET, path: 'billing', at: now - 5 });
    expect([first.status, retry.status, retry.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
    expect(wakeTexts(svc)).toEqual(['stripe invoice.paid']);
    expect(idempotencyKeys(svc)).toEqual([expect.stringMatching(/^signature:stripe:/)]);
  });
});
