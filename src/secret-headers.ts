/**
 * The one list of header names that carry secrets, shared by everything that shows a request's
 * headers: the console's request log (src/console/redact.ts) and what templates and transforms see
 * (src/mapping/context.ts), which applies it to query parameter names too. A second copy would
 * drift; add a name here and all follow.
 */

/**
 * The request's own credentials (a hook token, a session cookie): removed before any template or
 * transform runs, whatever a mapping asks for. Signature headers join them per scheme
 * (src/auth/signatures: each scheme's `signatureHeaders`).
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-hookgate-token', 'x-openclaw-token']);

/** The request's own credential in the query (the deprecated `?token=`): removed whatever a mapping asks for. */
export const CREDENTIAL_QUERY_PARAMETERS: ReadonlySet<string> = new Set(['token']);

/**
 * Names that look like they carry a secret of the sender's own (`x-api-key`, `x-forwarded-access-token`,
 * `x-amz-security-token`, `x-client-secret`, a session), or one a proxy in front of Hookgate adds to
 * every request it lets through (an identity-aware proxy's signed-in user: `cf-access-jwt-assertion`,
 * `x-goog-iap-jwt-assertion`, `x-amzn-oidc-data`; an API gateway's caller key:
 * `ocp-apim-subscription-key`, `x-functions-key`): the console redacts them, and templates and
 * transforms see them only where a mapping names them in `allowSecretHeaders`. Also used for payload
 * keys in the console, and for query parameter names (`?api_key=`, `?access_token=`: see them only
 * through a mapping's `allowSecretQuery`).
 */
const SECRET_NAME =
  /token|secret|passw|authoriz|api[-_]?key|signature|cookie|credential|session|private|(?:^|-)auth(?:-|$)|x-hub-|x-hookgate|jwt|assertion|oidc|subscription-key|functions-key/i;

/** True for a header (or payload key, or query parameter) name that carries, or looks like it carries, a secret. */
export function looksSecret(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase()) || SECRET_NAME.test(name);
}
