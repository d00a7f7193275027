import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { logChannel } from '../../src/channels/log.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { keyedDigester } from '../../src/log-digest.js';
import { installationLogKey, logKeyFile } from '../../src/store/log-key.js';
import type { Store, StoreOptions } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { createTestDatabase } from '../helpers/postgres.js';

/*
 * delivery.log names a recipient by a keyed digest: a plain SHA-256 of a phone number is found by
 * hashing every number, an HMAC under the installation's key is not. The key lives with the store
 * (a 0600 file beside the SQLite file; a row of PostgreSQL's state table) and stays the same across
 * restarts, so the same recipient keeps the same digest.
 */

const options: StoreOptions = { logger: silentLogger(), idempotencyTtlMs: 3_600_000, role: 'service' };
const PHONE = '+4915112345678';

/** What the log channel writes for `to` under a key. */
async function loggedDigest(key: Buffer, to: string): Promise<unknown> {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  await logChannel.create({}, { fetch: globalThis.fetch, logger, digest: keyedDigester(key) }).send(to, 'reply');
  expect(JSON.stringify(lines)).not.toContain(PHONE);
  return lines[0]?.['to'];
}

describe('the log digest key on SQLite', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const installation = () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-logkey-'));
    dirs.push(dir);
    return { path: join(dir, 'hookgate.sqlite'), synchronous: 'normal' as const };
  };
  const keyOf = async (storage: { path: string; synchronous: 'normal' }) => {
    const store = openSqliteStore(storage, options);
    stores.push(store);
    return installationLogKey(storage, store.state);
  };

  it('is made once, 0600 beside the store, and the same after a restart', async () => {
    const storage = installation();
    const first = await keyOf(storage);
    expect(statSync(logKeyFile(storage.path)).mode & 0o777).toBe(0o600);
    const again = await keyOf(storage);
    expect(again.equals(first)).toBe(true);
    expect(await loggedDigest(again, PHONE)).toEqual(await loggedDigest(first, PHONE));
  });

  it('gives a recipient a digest that is not its plain SHA-256 and differs between installations', async () => {
    const [one, two] = [await keyOf(installation()), await keyOf(installation())];
    const digest = await loggedDigest(one, PHONE);
    expect(digest).toEqual({ hmac: createHmac('sha256', one).update(PHONE).digest('hex').slice(0, 12), length: PHONE.length });
    expect(JSON.stringify(digest)).not.toContain(createHash('sha256').update(PHONE).digest('hex').slice(0, 12));
    expect(await loggedDigest(two, PHONE)).not.toEqual(digest);
  });

  it('refuses a damaged key file with a message saying what to do', async () => {
    const storage = installation();
    writeFileSync(logKeyFile(storage.path), 'not a key\n', { mode: 0o600 });
    await expect(keyOf(storage)).rejects.toThrow(/is not 64 hex digits; remove it/);
  });
});

describe('the log digest key on PostgreSQL', () => {
  const database = createTestDatabase();
  afterAll(async () => (await database).drop());
  let schemas = 0;

  it('is kept in the state table: the same for concurrent instances and after a restart', async () => {
    const { url } = await database;
    schemas += 1;
    const storage = { url, pool: 2, schema: `logkey_${schemas}` };
    const [a, b] = [await openPostgresStore(storage, options), await openPostgresStore(storage, options)];
    const config = { url, path: 'unused.sqlite' };
    try {
      const [keyA, keyB] = await Promise.all([installationLogKey(config, a.state), installationLogKey(config, b.state)]);
      expect(keyA.equals(keyB)).toBe(true);
      await a.close();
      const restarted = await openPostgresStore(storage, options);
      try {
        expect((await installationLogKey(config, restarted.state)).equals(keyA)).toBe(true);
        expect(await restarted.state.get('log_digest_key')).toBe(keyA.toString('hex'));
      } finally {
        await restarted.close();
      }
    } finally {
      await b.close();
      await a.close().catch(() => undefined);
    }
  });
});
