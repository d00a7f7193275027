import { hash } from 'node:crypto';

/**
 * A request field as a log line may carry it: its length and the first 12 hex digits of its SHA-256,
 * enough to tell two values apart or find one the operator already knows, never the value itself
 * (a `to`, a `model` or an error quoting them is request data: raw payloads stay out of the logs).
 */
export function digestForLog(value: string): { sha256: string; length: number } {
  return { sha256: hash('sha256', value, 'hex').slice(0, 12), length: value.length };
}
