import { describe, expect, it } from 'vitest';
import type { CompiledSignature, SignedRequest } from '../../src/auth/signatures/index.js';
import { authenticateCandidates } from '../../src/http/candidate-auth.js';
import type { TokenPresence } from '../../src/http/auth.js';
import type { RoutedMapping } from '../../src/mapping/engine.js';
import { compiledFor, signAs } from '../helpers/signature-fixtures.js';

const AT = 1_700_000_000;
const BODY = Buffer.from('{"ref":"main"}');

/** A github-signed candidate whose verifier records each call in `calls`. */
function signedCandidate(id: string, secret: string, calls: string[], extra: { allowToken?: boolean } = {}): RoutedMapping {
  const compiled = compiledFor('github', { secret }, extra);
  const scheme = { ...compiled.scheme, verify: (settings: CompiledSignature['settings'], request: SignedRequest) => (calls.push(id), compiled.scheme.verify(settings, request)) };
  return { id, signature: { ...compiled, scheme } };
}

async function requestSignedWith(secret: string): Promise<SignedRequest> {
  const { headers } = await signAs('github', secret, BODY, AT, 'd-1');
  return { body: BODY, headers, query: '', nowSeconds: AT };
}

const UNSIGNED: SignedRequest = { body: BODY, headers: {}, query: '', nowSeconds: AT };

function tokenSpy(presence: TokenPresence): { read: () => TokenPresence; reads: () => number } {
  let reads = 0;
  return { read: () => (reads++, presence), reads: () => reads };
}

describe('authenticating a request against every candidate mapping of its path', () => {
  it('verifies each signed candidate once, in order, whichever verifies, and leaves the token alone', async () => {
    const calls: string[] = [];
    const candidates = [signedCandidate('a', 'secret-a', calls), { id: 'plain', signature: undefined }, signedCandidate('b', 'secret-b', calls), signedCandidate('a2', 'secret-a', calls)];
    const token = tokenSpy('valid');
    const verdict = await authenticateCandidates(candidates, await requestSignedWith('secret-a'), token.read);
    expect(calls).toEqual(['a', 'b', 'a2']);
    expect(verdict).toMatchObject({ ok: true, signed: { mapping: { id: 'a' } } });
    expect(verdict.ok && [...verdict.authenticated]).toEqual(['a', 'a2']);
    expect(token.reads()).toBe(0);
  });

  it('starts at the first candidate whose signature verifies', async () => {
    const calls: string[] = [];
    const candidates = [signedCandidate('a', 'secret-a', calls), signedCandidate('b', 'secret-b', calls)];
    const verdict = await authenticateCandidates(candidates, await requestSignedWith('secret-b'), tokenSpy('missing').read);
    expect(calls).toEqual(['a', 'b']);
    expect(verdict).toMatchObject({ ok: true, signed: { mapping: { id: 'b' } } });
    expect(verdict.ok && [...verdict.authenticated]).toEqual(['b']);
  });

  it('refuses a request no signature verifies for as the first candidate would, with its scheme and reason', async () => {
    const calls: string[] = [];
    const candidates = [signedCandidate('a', 'secret-a', calls), signedCandidate('b', 'secret-b', calls), { id: 'plain', signature: undefined }];
    const token = tokenSpy('valid');
    const verdict = await authenticateCandidates(candidates, await requestSignedWith('secret-c'), token.read);
    expect(verdict).toMatchObject({ ok: false, refusal: { code: 'SIGNATURE_INVALID', message: 'invalid signature (scheme github)' }, failure: { scheme: 'github', reason: 'mismatch' } });
    expect(calls).toEqual(['a', 'b']);
    expect(token.reads()).toBe(0);
  });

  it('lets the token authenticate only the candidates that take it, when the first one does', async () => {
    const calls: string[] = [];
    const candidates = [signedCandidate('a', 'secret-a', calls, { allowToken: true }), signedCandidate('b', 'secret-b', calls), { id: 'plain', signature: undefined }];
    const verdict = await authenticateCandidates(candidates, UNSIGNED, tokenSpy('valid').read);
    expect(verdict).toMatchObject({ ok: true, signed: undefined, token: { entry: { id: 'a' } } });
    expect(verdict.ok && [...verdict.authenticated]).toEqual(['a', 'plain']);
    const wrong = await authenticateCandidates(candidates, UNSIGNED, tokenSpy('invalid').read);
    expect(wrong).toMatchObject({ ok: false, refusal: { code: 'UNAUTHORIZED', message: 'invalid hook token' }, failure: undefined });
  });
});
