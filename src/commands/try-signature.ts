import type { SignatureFailure } from '../auth/signatures/index.js';
import { authenticateCandidates, type CandidateVerdict, type VerifiedEntry } from '../http/candidate-auth.js';
import type { MappingEngine, RoutedMapping } from '../mapping/engine.js';

/** One candidate mapping of the path: its scheme and whether the request is authenticated for it; never a header value or a secret. */
interface TryCandidate {
  mappingId: string;
  /** null: the mapping has no signature (it takes the hook token). */
  scheme: string | null;
  verified: boolean;
  authenticated: boolean;
}

/** What `hookgate try` says about the path's signatures; never a header value or a secret. */
export interface TrySignature {
  /** `required`, `scheme`, `expects`, `allowToken`: the first candidate mapping's, whose 401 a sender gets. */
  required: boolean;
  scheme?: string;
  /** How the sender signs, for the operator. */
  expects?: string;
  allowToken?: boolean;
  /** `not-given` when no signature header was passed with --header; `valid` when some candidate's verified. */
  result?: 'valid' | 'not-given' | SignatureFailure;
  /** Every candidate mapping, in order, when several share the path and signature headers were given. */
  candidates?: TryCandidate[];
  /** The mapping resolution starts at: the first one the request is authenticated for. */
  startsAt?: string;
}

export interface TrySignatureCheck {
  signature: TrySignature;
  /** The mappings the request is authenticated for, as the service decides; undefined when not checked or refused. */
  authenticated: ReadonlySet<string> | undefined;
  /** The mapping whose signature verified first, with what its scheme read (the delivery's replay key is its). */
  verified?: VerifiedEntry;
}

/**
 * Checks the signature headers given with --header against the payload file's exact bytes, now,
 * for every candidate mapping of the path as the service does (src/http/candidate-auth.ts). try is
 * local: where no signature verifies and the first candidate takes the hook token, the token is
 * taken as sent.
 */
export async function checkTrySignature(
  engine: MappingEngine,
  request: { name: string; payload: Record<string, unknown>; body: Buffer; headers: Record<string, string>; query: Record<string, string> },
): Promise<TrySignatureCheck> {
  const candidates = engine.candidates(request.name, request.payload);
  const signature = candidates[0]?.signature;
  const base: TrySignature = signature === undefined ? { required: false } : { required: true, scheme: signature.scheme.name, expects: signature.scheme.summary, allowToken: signature.allowToken };
  const given = candidates.some((candidate) => candidate.signature?.secretHeaders.some((name) => request.headers[name] !== undefined) === true);
  if (!given) return { signature: signature === undefined ? base : { ...base, result: 'not-given' }, authenticated: undefined };
  const query = new URLSearchParams(request.query).toString();
  const verdict = await authenticateCandidates(candidates, { body: request.body, headers: request.headers, query, nowSeconds: Math.floor(Date.now() / 1000) }, () => 'valid');
  const checked = { ...base, ...resultOf(verdict, signature === undefined), ...(candidates.length > 1 ? { candidates: candidates.map((candidate) => candidateOf(candidate, verdict)) } : {}) };
  return { signature: checked, authenticated: verdict.ok ? verdict.authenticated : undefined, ...(verdict.ok && verdict.signed !== undefined ? { verified: verdict.signed } : {}) };
}

function resultOf(verdict: CandidateVerdict, firstUnsigned: boolean): Pick<TrySignature, 'result' | 'startsAt'> {
  if (!verdict.ok) return { result: verdict.failure?.reason ?? 'missing' };
  if (verdict.signed !== undefined) return { result: 'valid', startsAt: verdict.signed.mapping.id };
  return { ...(firstUnsigned ? {} : { result: 'not-given' as const }), startsAt: verdict.token.entry.id };
}

function candidateOf(candidate: RoutedMapping, verdict: CandidateVerdict): TryCandidate {
  const authenticated = verdict.ok && verdict.authenticated.has(candidate.id);
  return { mappingId: candidate.id, scheme: candidate.signature?.scheme.name ?? null, verified: authenticated && verdict.signed !== undefined, authenticated };
}

const RESULTS: Record<NonNullable<TrySignature['result']>, string> = {
  valid: 'valid',
  'not-given': 'not checked (pass the headers with --header, e.g. from `hookgate sign`)',
  missing: 'INVALID: a signature header is missing',
  malformed: 'INVALID: malformed signature header',
  mismatch: 'INVALID: does not match the payload file with any configured secret',
  expired: 'EXPIRED: its timestamp is outside the allowed window',
  undecodable: 'INVALID: the signed form fields are not UTF-8 once decoded',
};

export function formatTrySignature(check: TrySignature): string {
  const result = check.result ?? 'not-given';
  const line = check.candidates === undefined ? firstMappingLines(check, result) : candidateLines(check.candidates, check.startsAt, result);
  if (result === 'valid' || result === 'not-given') return line;
  // The verdict comes before what the mapping would do: a sender with this signature gets only the 401.
  const code = result === 'expired' ? 'SIGNATURE_EXPIRED' : 'SIGNATURE_INVALID';
  return `${line}→ 401 ${code}: the request stops here; below is what a correctly signed request would do\n`;
}

function firstMappingLines(check: TrySignature, result: NonNullable<TrySignature['result']>): string {
  if (!check.required) return 'signature: not required (the mapping takes the hook token)\n';
  const token = check.allowToken === true ? '; the hook token is also accepted (allowToken)' : '; the hook token alone is refused';
  return `signature: required, scheme ${check.scheme} (${check.expects})${token}\n  ${RESULTS[result]}\n`;
}

function candidateLines(candidates: readonly TryCandidate[], startsAt: string | undefined, result: NonNullable<TrySignature['result']>): string {
  const lines = [`signature: checked against each of the ${candidates.length} mappings of this path, in mapping order, as the service does:`];
  for (const candidate of candidates) {
    const verdict = candidate.scheme === null ? 'no signature (takes the hook token)' : `scheme ${candidate.scheme}, ${candidate.verified ? 'verified' : 'did not verify'}`;
    lines.push(`  ${candidate.authenticated ? '✓' : '✗'} ${candidate.mappingId}: ${verdict}`);
  }
  if (startsAt === undefined) lines.push(`  ${RESULTS[result]} (the first mapping's verdict answers)`);
  else if (result === 'valid') lines.push(`  resolution starts at ${startsAt}, the first mapping the request is authenticated for`);
  else lines.push(`  no signature verified: with the hook token, resolution starts at ${startsAt}`);
  return `${lines.join('\n')}\n`;
}
