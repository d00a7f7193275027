import { SIGNATURE_HEADER_NAMES, type CompiledSignature } from '../auth/signatures/index.js';
import { CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAMETERS, looksSecret } from '../secret-headers.js';

type Problem = (field: string, message: string) => void;

/**
 * A mapping's `allowSecretHeaders`, lower-cased. A credential of the request itself or a signature
 * header is a config error (they never reach templates); a name that is not withheld anyway is a
 * warning (listing it changes nothing).
 */
export function compileSecretHeaderAccess(
  names: readonly string[] | undefined,
  signature: CompiledSignature | undefined,
  problem: Problem,
  warn: (message: string) => void,
): ReadonlySet<string> | undefined {
  if (names === undefined || names.length === 0) return undefined;
  const allowed = new Set<string>();
  for (const [index, name] of names.map((entry) => entry.toLowerCase()).entries()) {
    if (CREDENTIAL_HEADERS.has(name)) problem(`allowSecretHeaders/${index}`, `allowSecretHeaders: "${name}" carries the request's own credential and never reaches a template or a transform`);
    else if (SIGNATURE_HEADER_NAMES.includes(name) || signature?.secretHeaders.includes(name) === true) {
      problem(`allowSecretHeaders/${index}`, `allowSecretHeaders: "${name}" is a signature header and never reaches a template or a transform`);
    } else if (!looksSecret(name)) warn(`allowSecretHeaders: "${name}" does not look like a secret, so templates see it anyway; listing it changes nothing`);
    else allowed.add(name);
  }
  return allowed;
}

/**
 * A mapping's `allowSecretQuery`: query parameter names as written (a URL's names are
 * case-sensitive). The request's own `token` is a config error; a name that is not withheld anyway
 * is a warning.
 */
export function compileSecretQueryAccess(names: readonly string[] | undefined, problem: Problem, warn: (message: string) => void): ReadonlySet<string> | undefined {
  if (names === undefined || names.length === 0) return undefined;
  const allowed = new Set<string>();
  for (const [index, name] of names.entries()) {
    if (CREDENTIAL_QUERY_PARAMETERS.has(name)) problem(`allowSecretQuery/${index}`, `allowSecretQuery: "${name}" carries the request's own credential and never reaches a template or a transform`);
    else if (!looksSecret(name)) warn(`allowSecretQuery: "${name}" does not look like a secret, so templates see it anyway; listing it changes nothing`);
    else allowed.add(name);
  }
  return allowed;
}
