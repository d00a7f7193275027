import { describe, expect, it } from 'vitest';
import { HookError } from '../../src/errors.js';
import { engineWith, request } from './support.js';

const SIGNED = { id: 'gh', match: { path: 'ingest', source: 'github' }, action: 'wake' as const, textTemplate: 'gh', signature: { scheme: 'github', secret: 's3cret' } };
const OPEN = { id: 'other', match: { path: 'ingest' }, action: 'wake' as const, textTemplate: 'other' };
const VERIFIED = { scheme: 'github', id: 'd-1', timestamp: null };

describe('the engine and signed mappings', () => {
  it('lists the candidates by path and source without running anything, and says which names may need a signature', async () => {
    const engine = await engineWith({ mappings: [SIGNED, OPEN] });
    expect(engine.candidates('ingest', { source: 'github' }).map((mapping) => [mapping.id, mapping.signature?.scheme.name])).toEqual([
      ['gh', 'github'],
      ['other', undefined],
    ]);
    expect(engine.candidates('ingest', { source: 'ci' })).toEqual([{ id: 'other', signature: undefined }]);
    expect(engine.mayRequireSignature('ingest')).toBe(true);
    expect(engine.mayRequireSignature('elsewhere')).toBe(false);
    expect(engine.mayRequireSignature('wake')).toBe(false);
  });

  it('refuses to run a signed mapping for a request that carries no verified signature', async () => {
    const engine = await engineWith({ mappings: [SIGNED, OPEN] });
    const unverified = engine.resolve(request('ingest', { source: 'github' }));
    await expect(unverified).rejects.toBeInstanceOf(HookError);
    await expect(unverified).rejects.toMatchObject({ code: 'SIGNATURE_INVALID' });
    const verified = await engine.resolve(request('ingest', { source: 'github' }, { signature: VERIFIED }));
    expect(verified.kind).toBe('actions');
  });

  it('lets an allowToken mapping run without a signature', async () => {
    const engine = await engineWith({ mappings: [{ ...SIGNED, signature: { ...SIGNED.signature, allowToken: true } }] });
    expect((await engine.resolve(request('ingest', { source: 'github' }))).kind).toBe('actions');
  });

  it('keeps every signature header out of the template context', async () => {
    const engine = await engineWith({
      mappings: [{ ...SIGNED, allowUnsafeExternalContent: true, textTemplate: '[{{headers.x-hub-signature-256}}][{{headers.stripe-signature}}][{{headers.webhook-signature}}][{{headers.x-other}}]' }],
    });
    const headers = { 'x-hub-signature-256': 'sha256=abc', 'stripe-signature': 't=1,v1=abc', 'webhook-signature': 'v1,abc', 'x-other': 'kept' };
    const outcome = await engine.resolve(request('ingest', { source: 'github' }, { signature: VERIFIED, headers }));
    expect(outcome.kind === 'actions' ? outcome.actions[0] : undefined).toMatchObject({ text: '[][][][kept]' });
  });
});
