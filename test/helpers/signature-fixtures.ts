import { createHash, createPrivateKey, createPublicKey, sign as ed25519Sign, type KeyObject } from 'node:crypto';
import { compileSignature, findScheme, type CompiledSignature, type SignedDelivery } from '../../src/auth/signatures/index.js';
import type { SignatureConfig } from '../../src/config/signature-schema.js';
import type { TestService } from './service.js';

/**
 * How tests configure and sign for every scheme alike: the per-scheme settings a real mapping would
 * carry (hmac's header, twilio's publicUrl), and a signer for schemes only the provider can sign
 * (discord: an Ed25519 key pair derived from the test's "secret", so another secret is another key).
 */
export const TWILIO_PUBLIC_URL = 'https://hooks.example.com/hooks/twilio';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A deterministic Ed25519 key pair per secret string. */
export function discordKeys(secret: string): { privateKey: KeyObject; publicKeyHex: string } {
  const seed = createHash('sha256').update(secret).digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return { privateKey, publicKeyHex: Buffer.from(jwk.x ?? '', 'base64url').toString('hex') };
}

/** The mapping's `signature` for `scheme`, keyed by `secret` (or a rotation of `secrets` where the scheme has them). */
export function schemeConfig(scheme: string, credential: { secret?: string; secrets?: string[] }, extra: Partial<SignatureConfig> = {}): SignatureConfig {
  if (scheme === 'discord') return { scheme, publicKey: discordKeys(credential.secret ?? credential.secrets?.[0] ?? '').publicKeyHex, ...extra };
  const own = scheme === 'hmac' ? { header: 'X-Signature', prefix: 'sha256=' } : scheme === 'twilio' ? { publicUrl: TWILIO_PUBLIC_URL } : {};
  return { scheme, ...credential, ...own, ...extra } as SignatureConfig;
}

export function compiledFor(scheme: string, credential: { secret?: string; secrets?: string[] }, extra: Partial<SignatureConfig> = {}): CompiledSignature {
  const { signature, problems } = compileSignature(schemeConfig(scheme, credential, extra));
  if (signature === undefined) throw new Error(problems.map((problem) => problem.message).join('; '));
  return signature;
}

/** What the sender would send for `body` at `at`, signed with `secret`, headers lower-cased. */
export async function signAs(scheme: string, secret: string, body: Buffer, at: number, deliveryId: string, extra: Partial<SignatureConfig> = {}): Promise<Required<Pick<SignedDelivery, 'headers' | 'body'>> & { query: string }> {
  const found = findScheme(scheme);
  if (found === undefined) throw new Error(`no scheme ${scheme}`);
  let delivery: SignedDelivery;
  if (found.sign !== undefined) {
    const signature = compiledFor(scheme, { secret }, extra);
    delivery = await found.sign(signature.settings, body, at, deliveryId);
  } else if (scheme === 'discord') {
    const signed = ed25519Sign(null, Buffer.concat([Buffer.from(String(at)), body]), discordKeys(secret).privateKey).toString('hex');
    delivery = { headers: { 'X-Signature-Timestamp': String(at), 'X-Signature-Ed25519': signed } };
  } else {
    throw new Error(`no test signer for scheme ${scheme}`);
  }
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { headers, body: delivery.body ?? body, query: delivery.query ?? '' };
}

export interface SendOptions {
  /** Hook name; default the scheme's name. */
  path?: string;
  secret?: string;
  at?: number;
  delivery?: string;
  headers?: Record<string, string>;
  omit?: readonly string[];
  sendBody?: string;
  contentType?: string;
  /** The mapping's own signature settings where they differ from schemeConfig's (an hmac header). */
  config?: Partial<SignatureConfig>;
}

/** Sends `body` to `{hooks.path}/<path or scheme>` signed as the sender would (its query, headers and body). */
export async function sendSignedAs(svc: TestService, scheme: string, body: string, options: SendOptions & { secret: string }) {
  const signed = await signAs(scheme, options.secret, Buffer.from(body), options.at ?? Math.floor(Date.now() / 1000), options.delivery ?? `d-${Math.random()}`, options.config);
  const extra = Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json', ...signed.headers, ...extra };
  for (const name of options.omit ?? []) for (const key of Object.keys(headers)) if (key.toLowerCase() === name) delete headers[key];
  const query = signed.query === '' ? '' : `?${signed.query}`;
  const response = await fetch(`${svc.hooksUrl}/${options.path ?? scheme}${query}`, { method: 'POST', headers, body: options.sendBody ?? signed.body });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), headers: response.headers };
}

