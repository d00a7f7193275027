import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { whileLocked } from '../../src/store/sqlite/writer-lock.js';
import { isBusy } from '../../src/store/sqlite/write-when-free.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshDatabase(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-writer-lock-'));
  dirs.push(dir);
  const path = join(dir, 'store.sqlite');
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER)');
  db.close();
  return path;
}

// Another thread's connection: takes the write lock, says so (flag 1), holds it until told to commit (flag 2).
const HOLDER = `
const { workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const flags = new Int32Array(workerData.shared);
const db = new DatabaseSync(workerData.path);
db.exec('BEGIN IMMEDIATE');
db.exec('INSERT INTO t (v) VALUES (1)');
Atomics.store(flags, 0, 1);
Atomics.notify(flags, 0);
while (Atomics.load(flags, 0) !== 2) Atomics.wait(flags, 0, 1, 50);
db.exec('COMMIT');
db.close();
`;

/** Starts the holder on a fresh database; `release` tells it to commit and waits for its thread to end. */
function holdWriteLock(): { path: string; flags: Int32Array; release: () => Promise<unknown> } {
  const path = freshDatabase();
  const shared = new SharedArrayBuffer(4);
  const flags = new Int32Array(shared);
  const holder = new Worker(HOLDER, { eval: true, workerData: { path, shared } });
  const ended = new Promise((resolve, reject) => holder.once('exit', resolve).once('error', reject));
  while (Atomics.load(flags, 0) !== 1) Atomics.wait(flags, 0, 0, 50);
  return {
    path,
    flags,
    release: () => {
      Atomics.store(flags, 0, 2);
      Atomics.notify(flags, 0);
      return ended;
    },
  };
}

describe('whileLocked: the writer thread waits for the write lock another connection holds', () => {
  it('tries again while SQLite answers BUSY and takes the lock once the other connection commits', async () => {
    const { path, flags, release } = holdWriteLock();
    const db = new DatabaseSync(path, { timeout: 0 });
    try {
      let tries = 0;
      whileLocked(() => {
        tries += 1;
        // After two refusals the holder is told to commit: the next tries find the lock free.
        if (tries === 3) {
          Atomics.store(flags, 0, 2);
          Atomics.notify(flags, 0);
        }
        db.exec('BEGIN IMMEDIATE');
      }, 30_000);
      expect(tries).toBeGreaterThanOrEqual(3);
      db.exec('INSERT INTO t (v) VALUES (2)');
      db.exec('COMMIT');
      await release();
      expect(db.prepare('SELECT v FROM t ORDER BY v').all().map((row) => row['v'])).toEqual([1, 2]);
    } finally {
      await release().catch(() => undefined);
      db.close();
    }
  });

  it('gives up with SQLite\'s BUSY error once the deadline has passed', async () => {
    const { path, release } = holdWriteLock();
    const db = new DatabaseSync(path, { timeout: 0 });
    try {
      let caught: unknown;
      try {
        whileLocked(() => db.exec('BEGIN IMMEDIATE'), 20);
      } catch (error) {
        caught = error;
      }
      expect(isBusy(caught)).toBe(true);
      expect(db.isTransaction).toBe(false);
    } finally {
      await release();
      db.close();
    }
  });

  it('does not retry an error other than BUSY', () => {
    let tries = 0;
    expect(() =>
      whileLocked(() => {
        tries += 1;
        throw Object.assign(new Error('disk I/O error'), { errcode: 10 });
      }, 30_000),
    ).toThrow('disk I/O error');
    expect(tries).toBe(1);
  });
});
