import { randomBytes } from 'node:crypto';
import { parseCommandLine } from './args.js';
import type { CommandIo } from './io.js';

/** `hookgate token`: a random 256-bit token, for hooks.token or gateway.auth.token. */
export async function runToken(argv: string[], io: CommandIo): Promise<number> {
  parseCommandLine({ args: argv, options: {}, strict: true });
  io.stdout(`${randomBytes(32).toString('base64url')}\n`);
  return 0;
}
