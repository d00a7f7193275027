/**
 * The durable references' commit: one node:sqlite (WAL) insert of the body per request, committed
 * in one transaction per event-loop turn (group commit, as Hookgate does) before answering. Its
 * checkpoint timer never fires within a measurement (seconds), so it pays no checkpoint at all: the
 * limit leaves out a cost every WAL server has and Hookgate pays (SQLite's automatic checkpoint
 * every ~4 MB of WAL, on its writer thread), which keeps it an upper bound.
 */
import { DatabaseSync } from 'node:sqlite';

export function groupCommitter(path: string, synchronous: 'FULL' | 'NORMAL'): (body: string) => Promise<void> {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${synchronous}`);
  db.exec('PRAGMA wal_autocheckpoint = 0');
  db.exec('CREATE TABLE IF NOT EXISTS bodies (id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, body TEXT NOT NULL)');
  setInterval(() => db.exec('PRAGMA wal_checkpoint(PASSIVE)'), 60_000).unref();
  const insert = db.prepare('INSERT INTO bodies (created_at, body) VALUES (?, ?)');
  let batch: Array<{ body: string; done: () => void }> = [];

  const flush = (): void => {
    const items = batch;
    batch = [];
    const at = Date.now();
    db.exec('BEGIN IMMEDIATE');
    for (const item of items) insert.run(at, item.body);
    db.exec('COMMIT');
    for (const item of items) item.done();
  };
  return (body) =>
    new Promise<void>((resolve) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ body, done: resolve });
    });
}

/** The committer the environment asks for. Env: REF_DB (SQLite file), REF_SYNC (`full` | `normal`). */
export function committerFromEnv(): (body: string) => Promise<void> {
  return groupCommitter(process.env['REF_DB'] ?? ':memory:', process.env['REF_SYNC'] === 'normal' ? 'NORMAL' : 'FULL');
}
