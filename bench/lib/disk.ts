/**
 * The cost of one committed transaction on this machine's disk, per durability setting: the floor
 * under every durable-acknowledgement number (with `full`, SQLite fsyncs the WAL at each commit).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { median } from './stats.js';

export function commitMillis(dir: string, synchronous: 'full' | 'normal', commits = 200): number {
  const path = join(dir, `disk-${synchronous}.sqlite`);
  const db = new DatabaseSync(path);
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const body = 'x'.repeat(1024);
    const times: number[] = [];
    for (let i = 0; i < commits; i++) {
      const t0 = performance.now();
      db.exec('BEGIN IMMEDIATE');
      insert.run(body);
      db.exec('COMMIT');
      times.push(performance.now() - t0);
    }
    return median(times);
  } finally {
    db.close();
    rmSync(path, { force: true });
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
  }
}
