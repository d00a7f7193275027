import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileSignature, SIGNATURE_SCHEMES } from '../../../src/auth/signatures/index.js';
import { SignatureSchema } from '../../../src/config/signature-schema.js';
import { EventsSchema } from '../../../src/config/admission-schema.js';
import { eventTypeReaderFor } from '../../../src/admission/event-type.js';
import { compiledFor, signAs } from '../../helpers/signature-fixtures.js';

const NOW = 1_760_000_000;
const BODY = Buffer.from('{"id":"evt_1","event_id":"Ev1","action":"opened","text":"héllo"}');
const SECRET = 'whsec_c2lnbmluZy1zZWNyZXQtZm9yLXRlc3Rz'; // valid for every scheme (base64 after whsec_)
const OTHER = 'whsec_b3RoZXItc2VjcmV0LW5vdC10aGUtb25l';

describe.each(SIGNATURE_SCHEMES.map((scheme) => [scheme.name, scheme] as const))('signature scheme %s (registry contract)', (name, scheme) => {
  const signature = compiledFor(name, { secret: SECRET });
  const verify = (delivery: { headers: Record<string, string>; body: Buffer; query: string }, nowSeconds = NOW) =>
    scheme.verify(signature.settings, { body: delivery.body, headers: delivery.headers, query: delivery.query, nowSeconds });
  const signed = (secret = SECRET, at = NOW, body = BODY) => signAs(name, secret, body, at, 'delivery-1');

  it('verifies what it signs, and names the headers it signs with as secret (lower-case)', async () => {
    const delivery = await signed();
    expect(await verify(delivery)).toMatchObject({ ok: true, timestamp: scheme.timestamped ? NOW : undefined });
    expect(signature.secretHeaders.filter((header) => delivery.headers[header] !== undefined).length).toBeGreaterThan(0);
    for (const header of signature.secretHeaders) expect(header).toBe(header.toLowerCase());
  });

  it('refuses a signature made with another secret', async () => {
    expect(await verify(await signed(OTHER))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it.runIf(scheme.signsBody)('refuses an altered body', async () => {
    const delivery = await signed();
    const altered = Buffer.from(delivery.body.toString().replace('opened', 'closed'));
    expect(await verify({ ...delivery, body: altered })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses a request without the signature header', async () => {
    const delivery = await signed();
    for (const header of signature.secretHeaders) delete delivery.headers[header];
    expect(await verify(delivery)).toEqual({ ok: false, reason: 'missing' });
  });

  it.runIf(scheme.usesSecret)('accepts a signature by any secret of a rotation', async () => {
    const delivery = await signed();
    const rotating = compiledFor(name, { secrets: [OTHER, SECRET] });
    expect((await scheme.verify(rotating.settings, { ...delivery, nowSeconds: NOW })).ok).toBe(true);
    const retired = compiledFor(name, { secrets: [OTHER] });
    expect((await scheme.verify(retired.settings, { ...delivery, nowSeconds: NOW })).ok).toBe(false);
  });

  it.runIf(scheme.timestamped)('refuses a timestamp outside the window, old or in the future, as expired', async () => {
    expect(await verify(await signed(SECRET, NOW - 301))).toEqual({ ok: false, reason: 'expired' });
    expect(await verify(await signed(SECRET, NOW + 301))).toEqual({ ok: false, reason: 'expired' });
    expect((await verify(await signed(SECRET, NOW - 300))).ok).toBe(true);
  });

  it.runIf(scheme.timestamped)('honours toleranceSeconds', async () => {
    const strict = compiledFor(name, { secret: SECRET }, { toleranceSeconds: 10 });
    const delivery = await signed(SECRET, NOW - 11);
    expect(await scheme.verify(strict.settings, { ...delivery, nowSeconds: NOW })).toEqual({ ok: false, reason: 'expired' });
  });

  it('keys replays by content when it signs no timestamp (a delivery id it does not sign proves nothing)', () => {
    if (!scheme.timestamped) expect(scheme.replayKey).toBe('content');
    expect(['content', 'delivery-id']).toContain(scheme.replayKey);
  });

  it('describes each of its options, and shares an option name only with the same schema', () => {
    for (const [key, schema] of Object.entries(scheme.options)) {
      expect((schema as { description?: string }).description, `${name}.${key}`).toMatch(/\w/);
      expect(['scheme', 'secret', 'secrets', 'toleranceSeconds', 'allowToken']).not.toContain(key);
      const documented = (SignatureSchema.properties as Record<string, { description?: string }>)[key];
      expect(documented?.description).toContain(`\`${name}\``);
      for (const other of SIGNATURE_SCHEMES) {
        if (other !== scheme && Object.hasOwn(other.options, key)) expect(JSON.stringify(other.options[key])).toBe(JSON.stringify(schema));
      }
    }
  });

  it('says in its file whether its deliveries carry an event type: a reader for `events`, or none and the `events` key names it', () => {
    const reader = eventTypeReaderFor(name);
    const events = (EventsSchema as { description?: string }).description ?? '';
    if (scheme.eventType === undefined) {
      expect(reader).toBeUndefined();
      expect(events).toContain(`\`${name}\``);
    } else {
      expect(reader).toBeDefined();
      expect(events).not.toContain(`\`${name}\``);
    }
  });

  it.runIf(scheme.eventType !== undefined)('reads an event type without throwing on any payload shape', () => {
    for (const payload of [{}, { type: 1, action: 2, event: null, entry: [null], object_attributes: 'x' }, { type: 'x', action: 'y' }]) {
      const type = scheme.eventType?.({}, payload);
      expect(type === undefined || typeof type === 'string').toBe(true);
    }
  });

  it('refuses any single-byte change to the body or to a signature header (property)', async () => {
    const delivery = await signed();
    const signatureHeaders = signature.secretHeaders.filter((header) => delivery.headers[header] !== undefined);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.nat(), async (inBody, position, delta, which) => {
        if (inBody && scheme.signsBody) {
          const body = Buffer.from(delivery.body);
          const at = position % body.length;
          body[at] = ((body[at] as number) + delta) % 256;
          expect((await verify({ ...delivery, body })).ok).toBe(false);
          return;
        }
        const header = signatureHeaders[which % signatureHeaders.length] as string;
        const value = Buffer.from(delivery.headers[header] as string, 'latin1');
        const at = position % value.length;
        value[at] = ((value[at] as number) + delta) % 256;
        expect((await verify({ ...delivery, headers: { ...delivery.headers, [header]: value.toString('latin1') } })).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('signature settings', () => {
  it('refuses an unknown scheme, a missing secret and both secret and secrets', () => {
    expect(compileSignature({ scheme: 'gitlab2', secret: 'x' }).problems[0]?.message).toMatch(/unknown signature scheme "gitlab2".*github, stripe/);
    expect(compileSignature({ scheme: 'github' }).problems).toEqual([{ field: 'secret', message: 'signature needs exactly one of secret or secrets' }]);
    expect(compileSignature({ scheme: 'github', secret: 'a', secrets: ['b'] }).problems).toHaveLength(1);
  });

  it("refuses another scheme's options, naming their scheme, and a scheme's missing required option", () => {
    expect(compileSignature({ scheme: 'github', secret: 'x', prefix: 'sha1=' }).problems[0]?.message).toMatch(/prefix applies only to scheme "hmac", not "github"/);
    expect(compileSignature({ scheme: 'stripe', secret: 'x', publicUrl: 'https://a.example/x' }).problems[0]).toMatchObject({ field: 'publicUrl', message: expect.stringMatching(/"twilio"/) });
    expect(compileSignature({ scheme: 'hmac', secret: 'x' }).problems[0]).toMatchObject({ field: 'header', message: expect.stringMatching(/needs signature.header/) });
    expect(compileSignature({ scheme: 'twilio', secret: 'x' }).problems[0]).toMatchObject({ field: 'publicUrl' });
    expect(compileSignature({ scheme: 'discord' }).problems[0]).toMatchObject({ field: 'publicKey' });
    expect(compileSignature({ scheme: 'discord', secret: 'x', publicKey: 'a'.repeat(64) }).problems[0]?.message).toMatch(/without a shared secret/);
  });

  it('refuses a Standard Webhooks secret that is not base64', () => {
    expect(compileSignature({ scheme: 'standard-webhooks', secret: 'whsec_!!!' }).problems[0]?.message).toMatch(/not a Standard Webhooks secret/);
  });

  it('defaults the tolerance to 300 seconds', () => {
    expect(compileSignature({ scheme: 'stripe', secret: 'x' }).signature?.settings.toleranceSeconds).toBe(300);
  });
});
