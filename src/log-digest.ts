import { createHmac, hash, randomBytes } from 'node:crypto';

/**
 * A request field as a log line may carry it: its length and the first 12 hex digits of its SHA-256,
 * enough to tell two values apart or find one the operator already knows, never the value itself
 * (a `model` or an error quoting one is request data: raw payloads stay out of the logs).
 */
export function digestForLog(value: string): { sha256: string; length: number } {
  return { sha256: hash('sha256', value, 'hex').slice(0, 12), length: value.length };
}

/** A value few enough to be guessed (a phone number, a chat id) as a log line carries it. */
interface KeyedLogDigest {
  /** First 12 hex digits of HMAC-SHA256 under the installation's key. */
  hmac: string;
  length: number;
}

export type KeyedDigester = (value: string) => KeyedLogDigest;

/**
 * Digests under a key (src/store/log-key.ts keeps the installation's): a plain hash of a phone
 * number can be found by hashing every number; without the key, no guess can be checked. Without a
 * key (a command that never delivers, a test), a random one: digests then differ from run to run.
 */
export function keyedDigester(key: Buffer = randomBytes(32)): KeyedDigester {
  return (value) => ({ hmac: createHmac('sha256', key).update(value).digest('hex').slice(0, 12), length: value.length });
}
