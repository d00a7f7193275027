import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { StateStore } from './port.js';

/*
 * The installation's key for keyed log digests (src/log-digest.ts): a recipient's digest in a log
 * line tells two recipients apart, but without the key nobody can test guesses (phone numbers are
 * few enough to try them all against a plain hash). Created once and kept with the store, so the
 * same recipient has the same digest across restarts and, on PostgreSQL, across instances.
 */

const KEY_BYTES = 32;
const KEY_PATTERN = /^[0-9a-f]{64}$/;
/** The row of PostgreSQL's `state` table that holds it. */
export const LOG_KEY_STATE = 'log_digest_key';

/** The file beside an SQLite store that holds it (mode 0600, like the store). */
export function logKeyFile(sqlitePath: string): string {
  return `${sqlitePath}.log-key`;
}

export async function installationLogKey(storage: Pick<Config['storage'], 'path' | 'url'>, state: StateStore): Promise<Buffer> {
  const fresh = randomBytes(KEY_BYTES).toString('hex');
  const hex = storage.url === undefined ? claimFile(logKeyFile(storage.path), fresh) : await state.claim(LOG_KEY_STATE, fresh);
  return parseKey(hex, storage.url === undefined ? logKeyFile(storage.path) : `the ${LOG_KEY_STATE} row of the state table`);
}

/** The file's key, or `fresh` written to a new file (never overwriting one another process wrote first). */
function claimFile(path: string, fresh: string): string {
  try {
    writeFileSync(path, `${fresh}\n`, { flag: 'wx', mode: 0o600 });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(path, 'utf8');
  }
}

function parseKey(hex: string, where: string): Buffer {
  const trimmed = hex.trim();
  if (!KEY_PATTERN.test(trimmed)) throw new Error(`the log digest key in ${where} is not ${KEY_BYTES * 2} hex digits; remove it to have a new one made`);
  return Buffer.from(trimmed, 'hex');
}
