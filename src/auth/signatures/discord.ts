import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import Type, { type Static, type TObject } from 'typebox';
import { objectField, parseUnixSeconds, readStampedSignature, stringField, withinWindow } from './primitives.js';
import type { HeaderMap, SignatureScheme } from './types.js';

const SIGNATURE = 'x-signature-ed25519';
const TIMESTAMP = 'x-signature-timestamp';
const HEX_SIGNATURE = /^[0-9a-f]{128}$/;

const OPTIONS = {
  publicKey: Type.Optional(
    Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: "The application's public key (64 hex characters, Developer Portal → General Information; required). No secret: Discord signs with its private key." }),
  ),
};
type DiscordOptions = Static<TObject<typeof OPTIONS>>;

/** Interaction types by number, as an `events` list names them. */
const INTERACTIONS: Record<number, string> = { 1: 'ping', 2: 'application_command', 3: 'message_component', 4: 'application_command_autocomplete', 5: 'modal_submit' };

/** Webhook Events carry no interaction token (interactions always do). */
function isWebhookEvent(payload: Record<string, unknown>): boolean {
  return !Object.hasOwn(payload, 'token');
}

/** Keys built once per configured public key (a config's few), not per request. */
const keys = new Map<string, KeyObject>();

function publicKeyOf(hex: string) {
  let key = keys.get(hex);
  if (key === undefined) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
    keys.set(hex, key);
  }
  return key;
}

/** Fails closed: a key or signature OpenSSL cannot use counts as a mismatch, never as a 500. */
function ed25519Verifies(publicKeyHex: string, signed: Buffer, signatureHex: string): boolean {
  try {
    return verifySignature(null, signed, publicKeyOf(publicKeyHex), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

/**
 * Discord interactions and Webhook Events: `X-Signature-Ed25519: <hex Ed25519 signature of
 * timestamp + body>` with `X-Signature-Timestamp`, verified with the application's public key.
 * Discord probes the endpoint with bad signatures, so refusing them is what keeps the URL saved.
 */
export const discord: SignatureScheme<DiscordOptions> = {
  name: 'discord',
  summary: 'X-Signature-Timestamp: <unix>, X-Signature-Ed25519: <hex Ed25519 of timestamp + body> (application public key)',
  timestamped: true,
  signsBody: true,
  usesSecret: false,
  acceptsForm: () => false,
  replayKey: 'delivery-id',
  options: OPTIONS,
  checkSettings(settings) {
    const hex = settings.options.publicKey;
    if (hex === undefined) return [{ field: 'publicKey', message: 'scheme "discord" needs signature.publicKey (the application\'s public key, hex)' }];
    try {
      publicKeyOf(hex);
      return [];
    } catch {
      return [{ field: 'publicKey', message: 'signature.publicKey is not an Ed25519 public key' }];
    }
  },
  signatureHeaders: () => [SIGNATURE],
  async verify(settings, request) {
    const read = readStampedSignature(request.headers, SIGNATURE, TIMESTAMP, HEX_SIGNATURE, parseUnixSeconds);
    if (!read.ok) return read;
    const { presented, stamp, timestamp } = read;
    const signed = Buffer.concat([Buffer.from(stamp, 'utf8'), request.body]);
    return ed25519Verifies(settings.options.publicKey ?? '', signed, presented) ? withinWindow(timestamp, settings, request.nowSeconds) : { ok: false, reason: 'mismatch' };
  },
  // The interaction's id (inside the signed body); Webhook Events carry none.
  deliveryId: (_headers, payload) => (isWebhookEvent(payload) ? undefined : stringField(payload, 'id')),
  eventType(_headers: HeaderMap, payload) {
    if (isWebhookEvent(payload)) return payload['type'] === 0 ? 'ping' : stringField(objectField(payload, 'event') ?? {}, 'type');
    const type = payload['type'];
    return typeof type === 'number' ? INTERACTIONS[type] : undefined;
  },
  // An interactions endpoint answers PING with PONG; a Webhook Events endpoint answers its PING (type 0) with 204.
  handshake(_headers, payload) {
    if (isWebhookEvent(payload)) return payload['type'] === 0 ? { status: 204, body: null } : undefined;
    return payload['type'] === 1 ? { status: 200, body: { type: 1 } } : undefined;
  },
};
