import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/store/sqlite/connection.js';
import { isBusy, writeWhenFree } from '../../src/store/sqlite/write-when-free.js';

describe('writeWhenFree', () => {
  let dir: string | undefined;
  const open: DatabaseSync[] = [];
  afterEach(() => {
    for (const db of open.splice(0)) if (db.isOpen) db.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** Two connections to one WAL file: `holder` as the writer thread, `runtime` with busy timeout 0. */
  function connections(): { holder: DatabaseSync; runtime: DatabaseSync } {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-busy-'));
    const path = join(dir, 'db.sqlite');
    const holder = new DatabaseSync(path);
    holder.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)');
    const runtime = new DatabaseSync(path, { timeout: 0 });
    open.push(holder, runtime);
    return { holder, runtime };
  }

  it('waits on timers, not on the event loop, while another connection holds the write lock, then writes', async () => {
    const { holder, runtime } = connections();
    holder.exec('BEGIN IMMEDIATE');
    holder.exec('INSERT INTO t VALUES (1)');
    let turns = 0;
    let tries = 0;
    let thirdTry!: () => void;
    const triedThrice = new Promise<void>((resolve) => (thirdTry = resolve));
    const ticker = setInterval(() => (turns += 1), 1);
    const write = writeWhenFree(() => {
      tries += 1;
      if (tries === 3) thirdTry();
      return inTransaction(runtime, () => runtime.exec('INSERT INTO t VALUES (2)'));
    });
    // Refused twice and tried again: each wait let the event loop turn (the ticker ran in between),
    // whereas a busy handler sleeping on the event loop would have held it until the lock was free.
    await triedThrice;
    const turnsByThirdTry = turns;
    expect(turnsByThirdTry).toBeGreaterThan(0);
    expect((runtime.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(0);
    holder.exec('COMMIT');
    await write;
    clearInterval(ticker);
    expect(tries).toBeGreaterThanOrEqual(4);
    expect((runtime.prepare('SELECT group_concat(x) AS xs FROM (SELECT x FROM t ORDER BY x)').get() as { xs: string }).xs).toBe('1,2');
  });

  it('throws other errors at once, and BUSY once the deadline has passed', async () => {
    const { holder, runtime } = connections();
    await expect(writeWhenFree(() => runtime.exec('INSERT INTO missing VALUES (1)'))).rejects.toThrow(/no such table/);
    holder.exec('BEGIN IMMEDIATE');
    const error = await writeWhenFree(() => runtime.exec('INSERT INTO t VALUES (1)'), 20).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isBusy(error)).toBe(true);
    holder.exec('ROLLBACK');
  });
});
