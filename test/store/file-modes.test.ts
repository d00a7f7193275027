import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, storePermissionProblems } from '../../src/store/sqlite/connection.js';
import { startTestService, type TestService } from '../helpers/service.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('store file modes', () => {
  let root: string | undefined;
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  it('creates the data directory 0700 and the database, WAL and shared-memory files 0600', () => {
    root = mkdtempSync(join(tmpdir(), 'hookgate-modes-'));
    const path = join(root, 'data', 'nested', 'hookgate.sqlite');
    const db = openDatabase(path, { synchronous: 'normal' });
    db.exec("INSERT INTO state (key, value) VALUES ('k', 'v')");
    expect(modeOf(join(root, 'data', 'nested'))).toBe(0o700);
    for (const suffix of ['', '-wal', '-shm']) expect(modeOf(`${path}${suffix}`), suffix).toBe(0o600);
    expect(storePermissionProblems(path)).toEqual([]);
    db.close();
  });

  it('warns at start-up, once per file, when the store is readable by others', async () => {
    root = mkdtempSync(join(tmpdir(), 'hookgate-modes-'));
    const path = join(root, 'hookgate.sqlite');
    openDatabase(path, { synchronous: 'normal' }).close();
    chmodSync(path, 0o644);
    chmodSync(root, 0o755);
    svc = await startTestService({}, { dir: root });
    const warnings = svc.logs.filter((line) => line['event'] === 'store.permissions_too_wide').map((line) => String(line['msg']));
    expect(warnings).toEqual([
      expect.stringMatching(/^data directory .* has mode 0755; expected 0700/),
      expect.stringMatching(/^store file .*hookgate\.sqlite has mode 0644; expected 0600/),
      // SQLite gives the WAL and shared-memory files the database file's mode.
      expect.stringMatching(/^store file .*hookgate\.sqlite-wal has mode 0644/),
      expect.stringMatching(/^store file .*hookgate\.sqlite-shm has mode 0644/),
    ]);
  });
});
