import { randomBytes } from 'node:crypto';
import type { CommandIo } from './io.js';

/** `hookgate token`: a random 256-bit token, for hooks.token or gateway.auth.token. */
export async function runToken(_argv: string[], io: CommandIo): Promise<number> {
  io.stdout(`${randomBytes(32).toString('base64url')}\n`);
  return 0;
}
