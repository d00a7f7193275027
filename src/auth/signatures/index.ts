import type { SignatureConfig } from '../../config/signature-schema.js';
import { SIGNATURE_SCHEMES } from './registry.js';
import type { SignatureScheme, SignatureSettings } from './types.js';

export type { HeaderMap, SignatureFailure, SignatureScheme, SignedDelivery, SignedRequest, Verification } from './types.js';

export { SIGNATURE_SCHEMES } from './registry.js';

const DEFAULT_TOLERANCE_SECONDS = 300;

/** The fixed signature header names of every scheme (hmac's is configured per mapping, so it is not among them). */
export const SIGNATURE_HEADER_NAMES: readonly string[] = [
  ...new Set(SIGNATURE_SCHEMES.flatMap((scheme) => scheme.signatureHeaders({ secrets: [], toleranceSeconds: DEFAULT_TOLERANCE_SECONDS, options: {} }).filter((name) => name !== ''))),
];

/** A mapping's signature, checked and ready: what the HTTP layer verifies per request. */
export interface CompiledSignature {
  readonly scheme: SignatureScheme;
  readonly settings: SignatureSettings;
  readonly allowToken: boolean;
  /** Form-encoded bodies are accepted (slack, twilio, or hmac with bodyFormat "form"). */
  readonly acceptsForm: boolean;
  /** Lower-cased header names that carry signatures: never shown to templates, transforms, the console or `try`. */
  readonly secretHeaders: readonly string[];
}

export function findScheme(name: string): SignatureScheme | undefined {
  return SIGNATURE_SCHEMES.find((scheme) => scheme.name === name);
}

/** Keys of a mapping's `signature` every scheme reads; the rest belong to one scheme or another. */
const COMMON_KEYS: ReadonlySet<string> = new Set(['scheme', 'secret', 'secrets', 'toleranceSeconds', 'allowToken']);

type Problem = { field: string; message: string };

/** Checks a mapping's `signature` key; problems carry the field they are about (relative to `signature`). */
export function compileSignature(config: SignatureConfig): { signature: CompiledSignature | undefined; problems: Problem[] } {
  const scheme = findScheme(config.scheme);
  if (scheme === undefined) {
    return { signature: undefined, problems: [{ field: 'scheme', message: `unknown signature scheme "${config.scheme}" (known: ${SIGNATURE_SCHEMES.map((s) => s.name).join(', ')})` }] };
  }
  const problems = [...credentialProblems(scheme, config), ...optionProblems(scheme, config)];
  if (problems.length > 0) return { signature: undefined, problems };
  const settings = settingsOf(scheme, config);
  problems.push(...scheme.checkSettings(settings));
  if (problems.length > 0) return { signature: undefined, problems };
  const signature: CompiledSignature = {
    scheme,
    settings,
    allowToken: config.allowToken === true,
    acceptsForm: scheme.acceptsForm(settings),
    secretHeaders: scheme.signatureHeaders(settings),
  };
  return { signature, problems };
}

function credentialProblems(scheme: SignatureScheme, config: SignatureConfig): Problem[] {
  const given = config.secret !== undefined || config.secrets !== undefined;
  if (!scheme.usesSecret) return given ? [{ field: 'secret', message: `scheme "${scheme.name}" verifies without a shared secret: remove secret/secrets` }] : [];
  return (config.secret === undefined) === (config.secrets === undefined) ? [{ field: 'secret', message: 'signature needs exactly one of secret or secrets' }] : [];
}

/** Options of another scheme are refused by name, so a typo in `scheme` does not pass silently. */
function optionProblems(scheme: SignatureScheme, config: SignatureConfig): Problem[] {
  const problems: Problem[] = [];
  for (const key of Object.keys(config)) {
    if (COMMON_KEYS.has(key) || Object.hasOwn(scheme.options, key) || config[key] === undefined) continue;
    const owners = SIGNATURE_SCHEMES.filter((other) => Object.hasOwn(other.options, key)).map((other) => `"${other.name}"`);
    problems.push({ field: key, message: `signature.${key} applies only to scheme ${owners.join(', ')}, not "${scheme.name}"` });
  }
  return problems;
}

function settingsOf(scheme: SignatureScheme, config: SignatureConfig): SignatureSettings {
  const options = Object.fromEntries(Object.keys(scheme.options).flatMap((key) => (config[key] === undefined ? [] : [[key, config[key]]])));
  const secrets = config.secrets !== undefined ? [...config.secrets] : config.secret !== undefined ? [config.secret] : [];
  return {
    secrets: Object.freeze(secrets),
    toleranceSeconds: config.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    options: Object.freeze(options),
  };
}
