/*
 * Micro-benchmark: what the run id's shape costs the store's writer when it inserts run rows.
 * Run: node --import tsx bench/run-ids.ts
 * For each id kind (random UUIDv4, time-ordered UUIDv7) and each number of runs already stored, it
 * commits 2,000 transactions of 10 run rows (the schema of src/store/sqlite/migrations.ts, WAL,
 * synchronous FULL, a checkpoint every 100 commits) into a fresh SQLite file and prints the CPU
 * time (user + system) and the wall time per row, and the WAL frames (pages) written per commit.
 */
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS } from '../src/store/sqlite/migrations.js';

const ROWS_PER_COMMIT = 10;
const COMMITS = 2_000;
/** About the size of an enveloped 1 KB agent message as the runs table stores it. */
const ACTION = JSON.stringify({ kind: 'agent', message: 'x'.repeat(2_300) });

function measure(kind: string, newId: () => string, existing: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-run-ids-'));
  const db = new DatabaseSync(join(dir, 'runs.sqlite'));
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    db.exec('PRAGMA wal_autocheckpoint = 1000');
    for (const migration of MIGRATIONS) db.exec(migration);
    const insert = db.prepare("INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action) VALUES (?, ?, 'queued', 'agent', 'Hook', 'hook:s', ?)");
    const commit = (rows: number): void => {
      db.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < rows; i++) insert.run(newId(), Date.now(), ACTION);
      db.exec('COMMIT');
    };
    for (let done = 0; done < existing; done += 1_000) commit(1_000);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    // Checkpoints by hand every 100 commits from here on, each reporting the frames those commits wrote.
    db.exec('PRAGMA wal_autocheckpoint = 0');
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    let frames = 0;
    for (let i = 0; i < COMMITS; i++) {
      commit(ROWS_PER_COMMIT);
      if (i % 100 === 99) frames += (db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number }).log;
    }
    const wallUs = Number(process.hrtime.bigint() - started) / 1_000;
    const used = process.cpuUsage(cpu);
    const rows = COMMITS * ROWS_PER_COMMIT;
    console.log(
      `${kind}  ${String(existing).padStart(7)} runs stored: ${((used.user + used.system) / rows).toFixed(1).padStart(5)} µs CPU/row ` +
        `(system ${(used.system / rows).toFixed(1).padStart(5)}), ${(wallUs / rows).toFixed(1).padStart(5)} µs wall/row, ` +
        `${(frames / COMMITS).toFixed(1)} WAL frames/commit`,
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`node ${process.version}; ${COMMITS} commits of ${ROWS_PER_COMMIT} run rows each, per id kind and table size`);
for (const existing of [0, 200_000]) {
  measure('UUIDv4', () => randomUUID(), existing);
  measure('UUIDv7', () => randomUUIDv7(), existing);
}
