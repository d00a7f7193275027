import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileSignature, SIGNATURE_SCHEMES, type CompiledSignature } from '../../../src/auth/signatures/index.js';
import type { SignatureConfig } from '../../../src/config/signature-schema.js';

const NOW = 1_760_000_000;
const BODY = Buffer.from('{"id":"evt_1","event_id":"Ev1","action":"opened","text":"héllo"}');
const SECRET = 'whsec_c2lnbmluZy1zZWNyZXQtZm9yLXRlc3Rz'; // valid for every scheme (base64 after whsec_)
const OTHER = 'whsec_b3RoZXItc2VjcmV0LW5vdC10aGUtb25l';

function compiled(scheme: string, extra: Partial<SignatureConfig> = {}): CompiledSignature {
  const config: SignatureConfig = { scheme, ...(scheme === 'hmac' ? { header: 'X-Signature', prefix: 'sha256=' } : {}), ...extra };
  if (config.secrets === undefined && config.secret === undefined) config.secret = SECRET;
  const { signature, problems } = compileSignature(config);
  expect(problems).toEqual([]);
  return signature as CompiledSignature;
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

async function signed(signature: CompiledSignature, body = BODY, at = NOW): Promise<Record<string, string>> {
  return lower(await signature.scheme.sign(signature.settings, body, at, 'delivery-1'));
}

describe.each(SIGNATURE_SCHEMES.map((scheme) => [scheme.name]))('signature scheme %s (registry contract)', (name) => {
  const signature = compiled(name);
  const verify = (headers: Record<string, string>, body = BODY, nowSeconds = NOW) => signature.scheme.verify(signature.settings, { body, headers, nowSeconds });

  it('verifies what it signs, and names the headers it signs with as secret', async () => {
    const headers = await signed(signature);
    expect(await verify(headers)).toEqual({ ok: true, timestamp: signature.scheme.timestamped ? NOW : undefined });
    const carriesSignature = signature.secretHeaders.filter((header) => headers[header] !== undefined);
    expect(carriesSignature.length).toBeGreaterThan(0);
  });

  it('refuses a signature made with another secret', async () => {
    const other = compiled(name, { secret: OTHER });
    expect(await verify(await signed(other))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses an altered body', async () => {
    const headers = await signed(signature);
    expect(await verify(headers, Buffer.from(BODY.toString().replace('opened', 'closed')))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses a request without the signature header', async () => {
    const headers = await signed(signature);
    for (const header of signature.secretHeaders) delete headers[header];
    expect(await verify(headers)).toEqual({ ok: false, reason: 'missing' });
  });

  it('accepts a signature by any secret of a rotation', async () => {
    const rotating = compiled(name, { secrets: [OTHER, SECRET] });
    const headers = await signed(signature);
    expect((await rotating.scheme.verify(rotating.settings, { body: BODY, headers, nowSeconds: NOW })).ok).toBe(true);
    const retired = compiled(name, { secrets: [OTHER] });
    expect((await retired.scheme.verify(retired.settings, { body: BODY, headers, nowSeconds: NOW })).ok).toBe(false);
  });

  it.runIf(signature.scheme.timestamped)('refuses a timestamp outside the window, old or in the future, as expired', async () => {
    const old = await signed(signature, BODY, NOW - 301);
    const future = await signed(signature, BODY, NOW + 301);
    const edge = await signed(signature, BODY, NOW - 300);
    expect(await verify(old)).toEqual({ ok: false, reason: 'expired' });
    expect(await verify(future)).toEqual({ ok: false, reason: 'expired' });
    expect((await verify(edge)).ok).toBe(true);
  });

  it.runIf(signature.scheme.timestamped)('honours toleranceSeconds', async () => {
    const strict = compiled(name, { toleranceSeconds: 10 });
    const headers = await signed(strict, BODY, NOW - 11);
    expect(await strict.scheme.verify(strict.settings, { body: BODY, headers, nowSeconds: NOW })).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses any single-byte change to the body or to a signature header (property)', async () => {
    const headers = await signed(signature);
    const signatureHeaders = signature.secretHeaders.filter((header) => headers[header] !== undefined);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.nat(), async (inBody, position, delta, which) => {
        if (inBody) {
          const body = Buffer.from(BODY);
          const at = position % body.length;
          body[at] = ((body[at] as number) + delta) % 256;
          expect((await verify(headers, body)).ok).toBe(false);
          return;
        }
        const header = signatureHeaders[which % signatureHeaders.length] as string;
        const value = Buffer.from(headers[header] as string, 'latin1');
        const at = position % value.length;
        value[at] = ((value[at] as number) + delta) % 256;
        expect((await verify({ ...headers, [header]: value.toString('latin1') })).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('signature settings', () => {
  it('refuses an unknown scheme, a missing secret and both secret and secrets', () => {
    expect(compileSignature({ scheme: 'gitlab', secret: 'x' }).problems[0]?.message).toMatch(/unknown signature scheme "gitlab".*github, stripe/);
    expect(compileSignature({ scheme: 'github' }).problems).toEqual([{ field: 'secret', message: 'signature needs exactly one of secret or secrets' }]);
    expect(compileSignature({ scheme: 'github', secret: 'a', secrets: ['b'] }).problems).toHaveLength(1);
  });

  it('refuses hmac-only options on another scheme and an hmac without a header', () => {
    expect(compileSignature({ scheme: 'github', secret: 'x', prefix: 'sha1=' }).problems[0]?.message).toMatch(/prefix applies only to scheme "hmac"/);
    expect(compileSignature({ scheme: 'hmac', secret: 'x' }).problems[0]?.message).toMatch(/needs signature.header/);
  });

  it('refuses a Standard Webhooks secret that is not base64', () => {
    expect(compileSignature({ scheme: 'standard-webhooks', secret: 'whsec_!!!' }).problems[0]?.message).toMatch(/not a Standard Webhooks secret/);
  });

  it('defaults the tolerance to 300 seconds', () => {
    expect(compileSignature({ scheme: 'stripe', secret: 'x' }).signature?.settings.toleranceSeconds).toBe(300);
  });
});
