import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import JSON5 from 'json5';

/**
 * The store a config file names, read without validating the file: when the file is broken,
 * `hookgate status` still reports the store and the server running on it (whose mappings are the
 * last ones that loaded), then the file's error. Undefined when even that cannot be read, or when
 * the store is given by a `${VAR}` (PostgreSQL URLs usually are).
 */
export async function storageOfBrokenConfig(configPath: string): Promise<{ path: string } | undefined> {
  let raw: unknown;
  try {
    raw = JSON5.parse(await readFile(configPath, 'utf8'));
  } catch {
    return undefined;
  }
  const storage = (raw as { storage?: { path?: unknown; url?: unknown } } | null)?.storage;
  if (storage?.url !== undefined) return undefined;
  const path = storage?.path ?? './data/hookgate.sqlite';
  if (typeof path !== 'string' || path.includes('${')) return undefined;
  return { path: resolve(dirname(configPath), path) };
}
