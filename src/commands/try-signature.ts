import type { SignatureFailure } from '../auth/signatures/index.js';
import type { MappingEngine } from '../mapping/engine.js';

/** What `hookgate try` says about the routed mapping's signature; never a header value or a secret. */
export interface TrySignature {
  required: boolean;
  scheme?: string;
  /** How the sender signs, for the operator. */
  expects?: string;
  allowToken?: boolean;
  /** `not-given` when no signature header was passed with --header. */
  result?: 'valid' | 'not-given' | SignatureFailure;
}

/** Checks the signature headers given with --header against the payload file's exact bytes, now. */
export async function checkTrySignature(
  engine: MappingEngine,
  request: { name: string; payload: Record<string, unknown>; body: Buffer; headers: Record<string, string>; query: Record<string, string> },
): Promise<TrySignature> {
  const routed = engine.route(request.name, request.payload);
  const signature = routed?.signature;
  if (signature === undefined) return { required: false };
  const base = { required: true, scheme: signature.scheme.name, expects: signature.scheme.summary, allowToken: signature.allowToken };
  if (!signature.secretHeaders.some((name) => request.headers[name] !== undefined)) return { ...base, result: 'not-given' };
  const query = new URLSearchParams(request.query).toString();
  const verdict = await signature.scheme.verify(signature.settings, { body: request.body, headers: request.headers, query, nowSeconds: Math.floor(Date.now() / 1000) });
  return { ...base, result: verdict.ok ? 'valid' : verdict.reason };
}

const RESULTS: Record<NonNullable<TrySignature['result']>, string> = {
  valid: 'valid',
  'not-given': 'not checked (pass the headers with --header, e.g. from `hookgate sign`)',
  missing: 'INVALID: a signature header is missing',
  malformed: 'INVALID: malformed signature header',
  mismatch: 'INVALID: does not match the payload file with any configured secret',
  expired: 'EXPIRED: its timestamp is outside the allowed window',
};

export function formatTrySignature(check: TrySignature): string {
  if (!check.required) return 'signature: not required (the mapping takes the hook token)\n';
  const token = check.allowToken === true ? '; the hook token is also accepted (allowToken)' : '; the hook token alone is refused';
  const result = check.result ?? 'not-given';
  const line = `signature: required, scheme ${check.scheme} (${check.expects})${token}\n  ${RESULTS[result]}\n`;
  if (result === 'valid' || result === 'not-given') return line;
  // The verdict comes before what the mapping would do: a sender with this signature gets only the 401.
  const code = result === 'expired' ? 'SIGNATURE_EXPIRED' : 'SIGNATURE_INVALID';
  return `${line}→ 401 ${code}: the request stops here; below is what a correctly signed request would do\n`;
}
