import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_SCHEMES } from '../../src/auth/signatures/index.js';
import type { SignatureConfig } from '../../src/config/signature-schema.js';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { openSocket, readResponse } from '../helpers/raw-http.js';
import { compiledFor, schemeConfig, sendSignedAs, signAs, type SendOptions } from '../helpers/signature-fixtures.js';

const SECRET = 'whsec_ZTJlLXNpZ25pbmctc2VjcmV0LWZvci10ZXN0cw==';
const OLD_SECRET = 'whsec_b2xkLXNpZ25pbmctc2VjcmV0LXJldGlyaW5n';
const WRONG = 'whsec_d3Jvbmctc2lnbmluZy1zZWNyZXQtZ3Vlc3M=';

function signatureConfig(scheme: string, credential: { secret?: string; secrets?: string[] } = { secret: SECRET }): SignatureConfig {
  return schemeConfig(scheme, credential);
}

function mapping(scheme: string, extra: Record<string, unknown> = {}) {
  return { id: `m-${scheme}`, match: { path: scheme }, action: 'wake', wakeMode: 'next-heartbeat', textTemplate: 'event {{action}} {{id}}', signature: signatureConfig(scheme), ...extra };
}

const TRANSFORMS = fileURLToPath(new URL('../fixtures/transforms/root', import.meta.url));
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Signed with SECRET unless the test names another secret. */
const sendSigned = (svc: TestService, scheme: string, body: string, options: SendOptions = {}) => sendSignedAs(svc, scheme, body, { secret: SECRET, ...options });

function wakeTexts(svc: TestService): string[] {
  return svc.db.prepare('SELECT text FROM events ORDER BY id').all().map((row) => (row as { text: string }).text);
}

// One service for every scheme (starting one per test would dominate the run time): per scheme a
// mapping at /<scheme>, one with a rotation at /<scheme>-rotating and one with allowToken at /<scheme>-token.
describe('signed hooks over HTTP, per scheme', () => {
  let svc: TestService;
  beforeAll(async () => {
    const mappings = SIGNATURE_SCHEMES.flatMap(({ name, usesSecret }) => [
      mapping(name),
      ...(usesSecret ? [{ ...mapping(name), id: `m-${name}-rotating`, match: { path: `${name}-rotating` }, signature: signatureConfig(name, { secrets: [SECRET, OLD_SECRET] }) }] : []),
      { ...mapping(name), id: `m-${name}-token`, match: { path: `${name}-token` }, signature: { ...signatureConfig(name), allowToken: true } },
    ]);
    svc = await startTestService({ hooks: { maxBodyBytes: 1024, throttle: { maxFailures: 1_000_000, windowSeconds: 60 }, mappings } });
  });
  afterAll(async () => {
    await svc.close();
  });

  describe.each(SIGNATURE_SCHEMES.map((scheme) => [scheme.name, scheme] as const))('%s', (scheme, definition) => {
    const marker = (id: string) => `${scheme}:${id}`;
    const body = (id: string) => JSON.stringify({ id: marker(id), event_id: marker(id), action: 'opened' });
    const stored = (id: string) => wakeTexts(svc).filter((text) => text.includes(marker(id)));
    const withToken = (path: string, id: string) =>
      fetch(`${svc.hooksUrl}/${path}`, { method: 'POST', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' }, body: body(id) });

    it('accepts a valid signature without the hook token and creates the action', async () => {
      const response = await sendSigned(svc, scheme, body('valid'));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ok: true, mode: 'next-heartbeat' });
      expect(stored('valid')).toHaveLength(1);
    });

    it('refuses a wrong secret and a missing header with 401 SIGNATURE_INVALID, and stores nothing', async () => {
      const wrong = await sendSigned(svc, scheme, body('wrong'), { secret: WRONG });
      const signatureHeaders = compiledFor(scheme, { secret: SECRET }).secretHeaders;
      const missing = await sendSigned(svc, scheme, body('missing'), { omit: signatureHeaders });
      for (const response of [wrong, missing]) {
        expect(response.status).toBe(401);
        expect(response.body.code).toBe('SIGNATURE_INVALID');
      }
      expect(missing.body.error).toMatch(/missing signature/);
      expect([...stored('wrong'), ...stored('missing')]).toEqual([]);
    });

    it.runIf(definition.signsBody)('refuses an altered body with 401 SIGNATURE_INVALID', async () => {
      const altered = await sendSigned(svc, scheme, body('signed'), { sendBody: body('altered') });
      expect([altered.status, altered.body.code]).toEqual([401, 'SIGNATURE_INVALID']);
      expect([...stored('signed'), ...stored('altered')]).toEqual([]);
    });

    it.runIf(definition.timestamped)('refuses an old or a future timestamp with 401 SIGNATURE_EXPIRED', async () => {
      const old = await sendSigned(svc, scheme, body('old'), { at: nowSeconds() - 3600 });
      const future = await sendSigned(svc, scheme, body('future'), { at: nowSeconds() + 3600 });
      expect([old.status, old.body.code]).toEqual([401, 'SIGNATURE_EXPIRED']);
      expect([future.status, future.body.code]).toEqual([401, 'SIGNATURE_EXPIRED']);
      expect([...stored('old'), ...stored('future')]).toEqual([]);
    });

    it.runIf(definition.usesSecret)('accepts the old and the new secret during a rotation', async () => {
      const path = `${scheme}-rotating`;
      expect((await sendSigned(svc, scheme, body('rot-old'), { path, secret: OLD_SECRET })).status).toBe(200);
      expect((await sendSigned(svc, scheme, body('rot-new'), { path, secret: SECRET })).status).toBe(200);
      expect((await sendSigned(svc, scheme, body('rot-wrong'), { path, secret: WRONG })).status).toBe(401);
      expect((await sendSigned(svc, scheme, body('rot-retired'), { secret: OLD_SECRET })).status).toBe(401);
    });

    it('answers a replayed delivery with the first response, marked replayed, and no second action', async () => {
      const at = nowSeconds();
      const first = await sendSigned(svc, scheme, body('replay'), { delivery: marker('delivery'), at });
      const again = await sendSigned(svc, scheme, body('replay'), { delivery: marker('delivery'), at });
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...first.body, replayed: true });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(stored('replay')).toHaveLength(1);
    });

    it.runIf(definition.replayKey === 'content')('answers the same signed bytes under a new delivery id as a replay, with no second action', async () => {
      const at = nowSeconds();
      const first = await sendSigned(svc, scheme, body('recaptured'), { delivery: marker('original'), at });
      const again = await sendSigned(svc, scheme, body('recaptured'), { delivery: marker('forged-fresh-id'), at });
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(stored('recaptured')).toHaveLength(1);
    });

    it('refuses a body over the limit with 413 before verifying it', async () => {
      const big = JSON.stringify({ id: marker('big'), event_id: marker('big'), action: 'x'.repeat(2000) });
      const response = await sendSigned(svc, scheme, big);
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('refuses the hook token alone (fail closed) unless allowToken is set', async () => {
      const tokenOnly = await withToken(scheme, 'token-only');
      expect(tokenOnly.status).toBe(401);
      expect(((await tokenOnly.json()) as { code: string }).code).toBe('SIGNATURE_INVALID');
      const allowed = await withToken(`${scheme}-token`, 'token-allowed');
      expect(allowed.status).toBe(200);
      expect(stored('token-only')).toEqual([]);
      expect(stored('token-allowed')).toHaveLength(1);
    });
  });
});

describe('signed hooks: routing, provider handshakes, secrecy', () => {
  let svc: TestService;
  afterEach(async () => {
    await svc.close();
  });

  it('verifies against the mapping match.source picks, and lets the token reach only the unsigned one', async () => {
    svc = await startTestService({
      hooks: {
        mappings: [
          { id: 'ingest-gh', match: { path: 'ingest', source: 'github' }, action: 'wake', textTemplate: 'gh {{action}}', signature: { scheme: 'github', secret: SECRET } },
          { id: 'ingest-other', match: { path: 'ingest' }, action: 'wake', textTemplate: 'other {{action}}' },
        ],
      },
    });
    const gh = JSON.stringify({ source: 'github', action: 'signed' });
    expect((await sendSigned(svc, 'github', gh, { path: 'ingest' })).status).toBe(200);
    const forged = await fetch(`${svc.hooksUrl}/ingest`, { method: 'POST', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ source: 'github', action: 'forged' }) });
    expect(forged.status).toBe(401);
    const other = await fetch(`${svc.hooksUrl}/ingest`, { method: 'POST', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ source: 'ci', action: 'tokened' }) });
    expect(other.status).toBe(200);
    const noToken = await fetch(`${svc.hooksUrl}/ingest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: 'ci', action: 'anon' }) });
    expect(noToken.status).toBe(401);
    const texts = wakeTexts(svc).join('\n');
    expect(texts).toContain('gh signed');
    expect(texts).toContain('other tokened');
    expect(texts).not.toContain('forged');
    expect(texts).not.toContain('anon');
  });

  it('answers 401, not 400, to an unsigned request whose body does not parse', async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('github')] } });
    const response = await fetch(`${svc.hooksUrl}/github`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(response.status).toBe(401);
    const signedBad = await sendSigned(svc, 'github', '{not json');
    expect([signedBad.status, signedBad.body.code]).toEqual([400, 'INVALID_JSON']);
  });

  it('refuses a chunked body that grows past the limit with 413, and an encoded or non-JSON body only once authenticated', async () => {
    svc = await startTestService({ hooks: { maxBodyBytes: 1024, mappings: [mapping('github')] } });
    const socket = await openSocket(svc.url);
    try {
      const chunk = 'x'.repeat(800);
      const size = chunk.length.toString(16);
      socket.write(`POST /hooks/github HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${size}\r\n${chunk}\r\n${size}\r\n${chunk}\r\n0\r\n\r\n`);
      const response = await readResponse(socket);
      expect([response.status, JSON.parse(response.body).code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    } finally {
      socket.destroy();
    }
    const unsigned = await fetch(`${svc.hooksUrl}/github`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' });
    expect(unsigned.status).toBe(401);
    const signedXml = await sendSigned(svc, 'github', '<a/>', { contentType: 'application/xml' });
    expect([signedXml.status, signedXml.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const signedGzip = await sendSigned(svc, 'github', '{"a":1}', { headers: { 'Content-Encoding': 'gzip' } });
    expect([signedGzip.status, signedGzip.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('refuses a signature header sent twice with 400, even where the hook token would be accepted (allowToken)', async () => {
    const tokenToo = { ...mapping('github'), id: 'gh-token', match: { path: 'github-token' }, signature: { ...signatureConfig('github'), allowToken: true } };
    const shopify = { ...mapping('shopify'), signature: { ...signatureConfig('shopify'), allowToken: true } };
    svc = await startTestService({ hooks: { mappings: [mapping('github'), tokenToo, shopify] } });
    const body = JSON.stringify({ action: 'twice' });
    const valid = (await signAs('github', SECRET, Buffer.from(body), 0, 'x')).headers['x-hub-signature-256'] as string;
    const cases = [
      { path: 'github', lines: [`X-Hub-Signature-256: ${valid}`, `X-Hub-Signature-256: ${valid}`] },
      // Read as "no signature", two copies would let the token through.
      { path: 'github-token', lines: [`Authorization: Bearer ${TEST_TOKEN}`, 'X-Hub-Signature-256: sha256=00', 'X-Hub-Signature-256: sha256=11'] },
      // Another scheme's signature header, sent twice to this one: as ambiguous.
      { path: 'shopify', lines: [`Authorization: Bearer ${TEST_TOKEN}`, 'X-Hub-Signature: sha1=00', 'X-Hub-Signature: sha1=11'] },
    ];
    for (const { path, lines } of cases) {
      // Two header lines on the wire (fetch would join them into one).
      const socket = await openSocket(svc.url);
      try {
        socket.write(`POST /hooks/${path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n${lines.join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        const response = await readResponse(socket);
        expect([response.status, JSON.parse(response.body).code], path).toEqual([400, 'AMBIGUOUS_CREDENTIALS']);
      } finally {
        socket.destroy();
      }
    }
    expect(wakeTexts(svc)).toEqual([]);
  });

  it("answers Slack's url_verification with its challenge and no action", async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('slack')] } });
    const response = await sendSigned(svc, 'slack', JSON.stringify({ type: 'url_verification', challenge: 'c-123', token: 'legacy' }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ challenge: 'c-123' });
    expect(wakeTexts(svc)).toEqual([]);
  });

  it('gives templates a Slack form body as fields, with payload parsed from JSON', async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('slack', { textTemplate: '{{command}} {{text}} / {{payload.payload.type}} {{payload.payload.user.name}}' })] } });
    const slash = new URLSearchParams({ command: '/deploy', text: 'prod now' }).toString();
    expect((await sendSigned(svc, 'slack', slash, { contentType: 'application/x-www-form-urlencoded' })).status).toBe(200);
    const action = new URLSearchParams({ payload: JSON.stringify({ type: 'block_actions', user: { name: 'ana' } }) }).toString();
    expect((await sendSigned(svc, 'slack', action, { contentType: 'application/x-www-form-urlencoded' })).status).toBe(200);
    const texts = wakeTexts(svc).join('\n');
    expect(texts).toContain('/deploy prod now /');
    expect(texts).toContain('block_actions ana');
  });

  it('reads a repeated form field as a list, keeps a non-JSON payload field as text, and refuses a __proto__ field', async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('slack', { textTemplate: 'tags {{tag}} / {{payload.payload}}' })] } });
    const form = { contentType: 'application/x-www-form-urlencoded' };
    expect((await sendSigned(svc, 'slack', 'tag=a&tag=b&payload=plain%20text', form)).status).toBe(200);
    expect(wakeTexts(svc).join('')).toContain('tags ["a","b"] / plain text');
    const polluting = await sendSigned(svc, 'slack', '__proto__=x&text=y', form);
    expect([polluting.status, polluting.body.code]).toEqual([400, 'FORBIDDEN_KEY']);
    const nested = await sendSigned(svc, 'slack', `payload=${encodeURIComponent('{"__proto__":{"polluted":1}}')}`, form);
    expect([nested.status, nested.body.code]).toEqual([400, 'FORBIDDEN_KEY']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses a form body for a scheme that sends JSON, and accepts it for hmac with bodyFormat form', async () => {
    svc = await startTestService({
      hooks: { mappings: [mapping('github'), mapping('hmac', { signature: { ...signatureConfig('hmac'), bodyFormat: 'form' }, textTemplate: 'form {{action}}' })] },
    });
    const form = 'action=submitted';
    const github = await sendSigned(svc, 'github', form, { contentType: 'application/x-www-form-urlencoded' });
    expect([github.status, github.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect((await sendSigned(svc, 'hmac', form, { contentType: 'application/x-www-form-urlencoded' })).status).toBe(200);
    expect(wakeTexts(svc).join('')).toContain('form submitted');
  });

  it("answers GitHub's ping with 200 and no action", async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('github')] } });
    const response = await sendSigned(svc, 'github', JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }), { headers: { 'X-GitHub-Event': 'ping' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true, ping: true });
    expect(wakeTexts(svc)).toEqual([]);
  });

  it('counts signature failures in the failed-auth throttle (429) and in hookgate_signature_failures_total', async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('stripe')], throttle: { maxFailures: 3, windowSeconds: 600 } } });
    const statuses: number[] = [];
    for (const id of ['a', 'b', 'c', 'd']) statuses.push((await sendSigned(svc, 'stripe', JSON.stringify({ id }), { secret: WRONG })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const valid = await sendSigned(svc, 'stripe', JSON.stringify({ id: 'e' }));
    expect(valid.status).toBe(429); // blocked means blocked, a valid signature included
    const metrics = await svc.service.metrics.render();
    expect(metrics).toMatch(/hookgate_signature_failures_total\{scheme="stripe",reason="mismatch"\} 3/);
  });

  it('never writes the secret, the signature or the body to the logs, nor shows signature headers to templates', async () => {
    svc = await startTestService({ hooks: { mappings: [mapping('github', { textTemplate: 'sig[{{headers.x-hub-signature-256}}] ev[{{headers.x-github-event}}]', allowUnsafeExternalContent: true })] } });
    const body = JSON.stringify({ action: 'body-marker-7731' });
    const ok = await sendSigned(svc, 'github', body, { headers: { 'X-GitHub-Event': 'issues' } });
    const bad = await sendSigned(svc, 'github', body, { secret: WRONG });
    expect([ok.status, bad.status]).toEqual([200, 401]);
    expect(wakeTexts(svc)).toEqual(['sig[] ev[issues]']);
    const wrongHeader = (await signAs('github', WRONG, Buffer.from(body), 0, 'x')).headers['x-hub-signature-256'] as string;
    const logs = svc.rawLogs();
    for (const secret of [SECRET, WRONG, wrongHeader.slice('sha256='.length), 'body-marker-7731']) expect(logs).not.toContain(secret);
  });
});

describe('signed hooks: transforms and durability', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
  });

  it('gives a transform input.signature (scheme, id, timestamp) and no signature header', async () => {
    svc = await startTestService({
      hooks: { transformsDir: TRANSFORMS, mappings: [mapping('standard-webhooks', { transform: { module: 'signature-echo.js' }, allowUnsafeExternalContent: true })] },
    });
    const at = nowSeconds();
    const response = await sendSigned(svc, 'standard-webhooks', JSON.stringify({ type: 'user.created' }), { delivery: 'msg_42', at });
    expect(response.status).toBe(200);
    expect(wakeTexts(svc)).toEqual([`sig {"scheme":"standard-webhooks","id":"msg_42","timestamp":${at}} headers[]`]);
  });

  it('remembers what it verified across a restart: a redelivery and the same body under a new delivery id both replay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-signed-restart-'));
    try {
      const config = { hooks: { mappings: [mapping('github')] } };
      svc = await startTestService(config, { dir });
      const body = JSON.stringify({ action: 'restart-replay' });
      const first = await sendSigned(svc, 'github', body, { delivery: 'gh-delivery-9' });
      await svc.close();
      svc = await startTestService(config, { dir });
      const again = await sendSigned(svc, 'github', body, { delivery: 'gh-delivery-9' });
      expect(first.status).toBe(200);
      expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([200, { ...first.body, replayed: true }, 'true']);
      expect(wakeTexts(svc).filter((text) => text.includes('restart-replay'))).toHaveLength(1);
      // GitHub signs neither a time nor the delivery id: a captured request under a fresh id is the same signed bytes.
      const recaptured = await sendSigned(svc, 'github', body, { delivery: 'gh-delivery-10' });
      expect([recaptured.status, recaptured.body, recaptured.headers.get('idempotent-replayed')]).toEqual([200, { ...first.body, replayed: true }, 'true']);
      expect(wakeTexts(svc).filter((text) => text.includes('restart-replay'))).toHaveLength(1);
      const fresh = await sendSigned(svc, 'github', JSON.stringify({ action: 'restart-replay', n: 2 }), { delivery: 'gh-delivery-11' });
      expect([fresh.status, fresh.headers.get('idempotent-replayed')]).toEqual([200, null]);
      expect(wakeTexts(svc).filter((text) => text.includes('restart-replay'))).toHaveLength(2);
    } finally {
      await svc?.close();
      svc = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('signed hooks: configuration', () => {
  it('refuses to start with an unknown scheme or a signature without a secret, naming each path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-signed-config-'));
    try {
      const mappings = [
        { ...mapping('github'), signature: { scheme: 'gitlab-ci', secret: 'x' } },
        { ...mapping('stripe'), signature: { scheme: 'stripe' } },
      ];
      const start = startTestService({ hooks: { mappings } }, { dir });
      await expect(start).rejects.toThrow(/\/hooks\/mappings\/0\/signature\/scheme: .*unknown signature scheme "gitlab-ci"/);
      await expect(start).rejects.toThrow(/\/hooks\/mappings\/1\/signature\/secret: .*exactly one of secret or secrets/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
