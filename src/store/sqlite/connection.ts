import { closeSync, constants, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { MIGRATIONS } from './migrations.js';

export interface OpenOptions {
  /** `full`: fsync at every commit (survives power loss); `normal`: WAL without fsync per commit (survives a process crash). */
  synchronous: 'full' | 'normal';
  /**
   * false: this connection's commits never checkpoint (wal_autocheckpoint 0): the service's
   * connections on the event loop, whose WAL frames the writer thread checkpoints (writer-serve.ts).
   */
  checkpoints?: boolean;
}

/** The store holds payloads and transcripts: only the service's user may read them. */
export const DATA_DIR_MODE = 0o700;
export const STORE_FILE_MODE = 0o600;

/**
 * Opens (creating if needed) the SQLite file in WAL mode and brings its schema up to date. A new
 * data directory is created 0700 and a new database file 0600; SQLite gives its `-wal` and `-shm`
 * files the mode of the database file. Existing ones are left as they are: see storePermissionProblems.
 */
export function openDatabase(path: string, options: OpenOptions): DatabaseSync {
  mkdirSync(dirname(path), { recursive: true, mode: DATA_DIR_MODE });
  createEmptyPrivateFile(path);
  const db = new DatabaseSync(path, { timeout: 5000 });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.exec('PRAGMA foreign_keys = ON');
  // SQLite's own checkpoint after every ~4 MB of WAL keeps each one short. A timer-driven one on the
  // event loop let the WAL grow to hundreds of MB under load and then stalled it for seconds.
  db.exec(`PRAGMA wal_autocheckpoint = ${options.checkpoints === false ? 0 : 1000}`);
  migrate(db);
  return db;
}

/**
 * Creates the database file 0600 when it does not exist yet (SQLite would create it 0644). Only a
 * file this call creates (O_EXCL) is ever opened outside SQLite: closing any descriptor of a file
 * drops every POSIX lock this process holds on it, and SQLite's locks are what tell another
 * process (an operator's `sqlite3`, a backup) that the database is in use. Without them, that
 * process checkpoints and deletes the WAL on close while this one keeps appending to the deleted
 * file, and a crash then loses every commit since (SQLite's "How To Corrupt An SQLite Database
 * File", §2.2). A file created here is empty and no connection of this process can hold it yet.
 */
function createEmptyPrivateFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, STORE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return; // live or not, SQLite alone opens it
    throw error;
  }
  closeSync(fd);
}

/**
 * The store's files and directory that others than the service's user may read or write (a file
 * made by an older version, a directory the operator made): one message each, for a start-up warning.
 */
export function storePermissionProblems(path: string): string[] {
  const problems: string[] = [];
  const check = (target: string, wanted: number, what: string): void => {
    let mode: number;
    try {
      mode = statSync(target).mode & 0o777;
    } catch {
      return; // not there (no WAL yet): nothing to protect
    }
    if ((mode & ~wanted) !== 0) problems.push(`${what} ${target} has mode ${mode.toString(8).padStart(4, '0')}; expected ${wanted.toString(8).padStart(4, '0')} (chmod ${wanted.toString(8)} it)`);
  };
  check(dirname(path), DATA_DIR_MODE, 'data directory');
  for (const suffix of ['', '-wal', '-shm']) check(`${path}${suffix}`, STORE_FILE_MODE, 'store file');
  return problems;
}

function migrate(db: DatabaseSync): void {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  for (let version = row.user_version; version < MIGRATIONS.length; version += 1) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(MIGRATIONS[version] as string);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}

/** Runs fn inside BEGIN IMMEDIATE … COMMIT, rolling back on any error. */
export function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

// A cache, not state: prepared statements per connection, dropped with the connection.
const statementCache = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** db.prepare(sql), compiled once per connection: the runtime's queries run many times a second. */
export function prepareCached(db: DatabaseSync, sql: string): StatementSync {
  let statements = statementCache.get(db);
  if (statements === undefined) {
    statements = new Map();
    statementCache.set(db, statements);
  }
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
