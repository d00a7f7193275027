import type { SignatureConfig } from '../../config/signature-schema.js';
import { github } from './github.js';
import { genericHmac } from './hmac.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { standardWebhooks } from './standard-webhooks.js';
import { stripe } from './stripe.js';
import type { SignatureScheme, SignatureSettings } from './types.js';

export type { SignatureFailure, SignatureScheme, SignatureSettings, SignedRequest, Verification } from './types.js';

/** The explicit registry: one line per scheme. */
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = [github, stripe, slack, shopify, standardWebhooks, genericHmac];

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The fixed signature header names of the built-in schemes (hmac's is configured per mapping). */
export const SIGNATURE_HEADER_NAMES: readonly string[] = SIGNATURE_SCHEMES.flatMap((scheme) =>
  scheme.signatureHeaders({ secrets: [], toleranceSeconds: DEFAULT_TOLERANCE_SECONDS }).filter((name) => name !== ''),
);

/** A mapping's signature, checked and ready: what the HTTP layer verifies per request. */
export interface CompiledSignature {
  readonly scheme: SignatureScheme;
  readonly settings: SignatureSettings;
  readonly allowToken: boolean;
  /** Form-encoded bodies are accepted (slack, or hmac with bodyFormat "form"). */
  readonly acceptsForm: boolean;
  /** Lower-cased header names that carry signatures: never shown to templates, transforms or `try`. */
  readonly secretHeaders: readonly string[];
}

export function findScheme(name: string): SignatureScheme | undefined {
  return SIGNATURE_SCHEMES.find((scheme) => scheme.name === name);
}

/** Checks a mapping's `signature` key; problems carry the field they are about (relative to `signature`). */
export function compileSignature(config: SignatureConfig): { signature: CompiledSignature | undefined; problems: Array<{ field: string; message: string }> } {
  const problems: Array<{ field: string; message: string }> = [];
  const scheme = findScheme(config.scheme);
  if (scheme === undefined) {
    problems.push({ field: 'scheme', message: `unknown signature scheme "${config.scheme}" (known: ${SIGNATURE_SCHEMES.map((s) => s.name).join(', ')})` });
  }
  if ((config.secret === undefined) === (config.secrets === undefined)) {
    problems.push({ field: 'secret', message: 'signature needs exactly one of secret or secrets' });
  }
  if (scheme === undefined || problems.length > 0) return { signature: undefined, problems };
  for (const option of ['header', 'algorithm', 'encoding', 'prefix', 'bodyFormat'] as const) {
    if (config[option] !== undefined && !scheme.options.includes(option)) {
      problems.push({ field: option, message: `signature.${option} applies only to scheme "hmac", not "${scheme.name}"` });
    }
  }
  const settings = settingsOf(config);
  problems.push(...scheme.checkSettings(settings).map((message) => ({ field: 'secret', message })));
  if (problems.length > 0) return { signature: undefined, problems };
  const signature: CompiledSignature = {
    scheme,
    settings,
    allowToken: config.allowToken === true,
    acceptsForm: scheme.acceptsForm || config.bodyFormat === 'form',
    secretHeaders: scheme.signatureHeaders(settings),
  };
  return { signature, problems };
}

function settingsOf(config: SignatureConfig): SignatureSettings {
  return {
    secrets: Object.freeze(config.secrets !== undefined ? [...config.secrets] : [config.secret ?? '']),
    toleranceSeconds: config.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    ...(config.header === undefined ? {} : { header: config.header }),
    ...(config.algorithm === undefined ? {} : { algorithm: config.algorithm }),
    ...(config.encoding === undefined ? {} : { encoding: config.encoding }),
    ...(config.prefix === undefined ? {} : { prefix: config.prefix }),
  };
}
