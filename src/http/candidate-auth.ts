import { HookError } from '../errors.js';
import type { CompiledSignature, HeaderMap, SignatureFailure, SignedRequest, Verification } from '../auth/signatures/index.js';
import { tokenRefusal } from '../auth/guard.js';
import type { RoutedMapping } from '../mapping/engine.js';
import type { TokenPresence } from './auth.js';

/** A candidate mapping whose signature verified, with what its scheme read. */
export interface VerifiedEntry {
  mapping: RoutedMapping & { signature: CompiledSignature };
  timestamp: number | undefined;
  /** What the signature covered when that is not the raw body (the scheme's verification says). */
  signedContent: string | undefined;
}

/**
 * Which of a path's candidate mappings a request is authenticated for. `entry` is the first of them
 * in mapping order: where resolution starts, and (when signed) whose scheme names the delivery.
 */
export type CandidateVerdict =
  | { ok: true; authenticated: ReadonlySet<string>; signed: VerifiedEntry; token: undefined }
  | { ok: true; authenticated: ReadonlySet<string>; signed: undefined; token: { entry: RoutedMapping } }
  /**
   * `failure`: the first candidate's signature failure, when that is what refused the request.
   * `unverified`: refused for want of the hook token by a first candidate that takes it, though the
   * request carried the signature headers of these later candidates (none verified): the first
   * mapping keeps the signed ones from answering (for the operator's log, never the response).
   */
  | { ok: false; refusal: HookError; failure: { scheme: string; reason: SignatureFailure } | undefined; unverified?: readonly RoutedMapping[] };

/**
 * Every signed candidate's signature is verified, each once, in mapping order, whichever verifies:
 * the work (and so the time) does not depend on which secret a request was signed with. A request
 * whose signature verifies for some candidates is authenticated for exactly those. When none
 * verifies, the first candidate decides, as it alone would: if it takes the hook token, a request
 * with the token is authenticated for every candidate that takes it (no `signature`, or
 * `allowToken` with none of its signature headers sent); else the first one's refusal answers, so
 * the 401 names no other mapping's scheme.
 */
export async function authenticateCandidates(candidates: readonly RoutedMapping[], request: SignedRequest, tokenOf: () => TokenPresence): Promise<CandidateVerdict> {
  const verdicts: Array<Verification | undefined> = [];
  for (const candidate of candidates) verdicts.push(candidate.signature === undefined ? undefined : await candidate.signature.scheme.verify(candidate.signature.settings, request));
  const entryIndex = verdicts.findIndex((verdict) => verdict?.ok === true);
  const entry = candidates[entryIndex];
  const entryVerdict = verdicts[entryIndex];
  if (entry?.signature !== undefined && entryVerdict?.ok === true) {
    const authenticated = new Set(candidates.filter((_, index) => verdicts[index]?.ok === true).map((candidate) => candidate.id));
    const signed = { mapping: { ...entry, signature: entry.signature }, timestamp: entryVerdict.timestamp, signedContent: entryVerdict.signedContent };
    return { ok: true, authenticated, signed, token: undefined };
  }
  const first = candidates[0];
  const firstVerdict = verdicts[0];
  if (first?.signature !== undefined && firstVerdict?.ok === false && !takesToken(first.signature, request.headers)) {
    const { name } = first.signature.scheme;
    return { ok: false, refusal: signatureRefusal(name, firstVerdict.reason), failure: { scheme: name, reason: firstVerdict.reason } };
  }
  const presence = tokenOf();
  if (first === undefined || presence !== 'valid') {
    const refused = { ok: false as const, refusal: tokenRefusal('hook token', presence === 'invalid'), failure: undefined };
    const unverified = candidates.filter((candidate) => candidate.signature !== undefined && carriesSignature(candidate.signature, request.headers));
    return unverified.length === 0 ? refused : { ...refused, unverified };
  }
  const takers = candidates.filter((candidate) => takesToken(candidate.signature, request.headers));
  return { ok: true, authenticated: new Set(takers.map((taker) => taker.id)), signed: undefined, token: { entry: first } };
}

/** A mapping takes the hook token without a signature, or with `allowToken` from a request that carries none of its signature headers. */
function takesToken(signature: CompiledSignature | undefined, headers: HeaderMap): boolean {
  return signature === undefined || (signature.allowToken && !carriesSignature(signature, headers));
}

function carriesSignature(signature: CompiledSignature, headers: HeaderMap): boolean {
  return signature.secretHeaders.some((name) => headers[name] !== undefined);
}

const MESSAGES: Record<SignatureFailure, string> = {
  missing: 'missing signature',
  malformed: 'malformed signature',
  mismatch: 'invalid signature',
  expired: 'signature timestamp outside the allowed window',
  undecodable: 'the signed form fields are not UTF-8 once decoded, so the signature could stand for other bodies',
};

function signatureRefusal(scheme: string, reason: SignatureFailure): HookError {
  return new HookError(reason === 'expired' ? 'SIGNATURE_EXPIRED' : 'SIGNATURE_INVALID', `${MESSAGES[reason]} (scheme ${scheme})`);
}
