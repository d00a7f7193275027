import { randomBytes } from 'node:crypto';
import { parseCommandLine } from './args.js';
import type { CommandIo } from './io.js';

export function parseTokenArgs(argv: string[]): void {
  parseCommandLine({ args: argv, options: {}, strict: true });
}

/** `hookgate token`: a random 256-bit token, for hooks.token or gateway.auth.token. */
export async function runToken(argv: string[], io: CommandIo): Promise<number> {
  parseTokenArgs(argv);
  io.stdout(`${randomBytes(32).toString('base64url')}\n`);
  return 0;
}
