/**
 * Entry of the store's writer thread: it owns the ingress write connection, seals the actions'
 * untrusted content (the envelope) and commits the batches the main thread sends, so neither that
 * per-byte work nor an fsync blocks the event loop that parses requests.
 *
 * Run from dist/ (bundled) or from the sources with bin/source-hooks.js as `--import`.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Action } from '../actions/types.js';
import { sealAction } from '../actions/seal.js';
import type { ItemOutcome, RequestEnvelope, WriteItem, WriterInit, WriterReply, WriterRequest } from './writer-protocol.js';

const PROBE_KEY = 'hookgate.readiness-probe';
/** Exit code of the test hook's simulated crash. */
const CRASH_EXIT_CODE = 70;

type Statements = Record<'insertEvent' | 'insertRun' | 'insertKey' | 'findKey' | 'purgeKeys' | 'probe', StatementSync>;

function open(init: WriterInit): DatabaseSync {
  const db = new DatabaseSync(init.path, { timeout: init.busyTimeoutMs });
  db.exec(`PRAGMA synchronous = ${init.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // This connection makes most commits, so it also runs SQLite's automatic checkpoints: off the main thread.
  db.exec('PRAGMA wal_autocheckpoint = 1000');
  return db;
}

function prepare(db: DatabaseSync): Statements {
  return {
    insertEvent: db.prepare('INSERT INTO events (created_at, text, mode, hook, mapping_id) VALUES (?, ?, ?, ?, ?)'),
    insertRun: db.prepare(
      "INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action) VALUES (?, ?, 'queued', ?, ?, ?, ?)",
    ),
    // REPLACE: an expired key that maintenance has not purged yet is free again (findKey ignores it).
    insertKey: db.prepare('INSERT OR REPLACE INTO idempotency (key, created_at, fingerprint, response) VALUES (?, ?, ?, ?)'),
    findKey: db.prepare('SELECT fingerprint, response FROM idempotency WHERE key = ? AND created_at > ?'),
    purgeKeys: db.prepare('DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE created_at <= ? LIMIT ?)'),
    probe: db.prepare('INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)'),
  };
}

function serve(port: MessagePort, init: WriterInit): void {
  const db = open(init);
  const statements = prepare(db);
  const probeValue = 'x'.repeat(init.probeBytes);
  let crashArmed = false;

  /** An item's actions sealed, or why they cannot be (that item alone is refused). */
  type Prepared = { actions: Action[]; suspicious: string[][] } | { message: string };

  function prepareItem(item: WriteItem): Prepared {
    try {
      const sealed = item.actions.map(sealAction);
      return { actions: sealed.map((s) => s.action), suspicious: sealed.map((s) => s.suspicious) };
    } catch (error) {
      return { message: (error as Error).message };
    }
  }

  /** One item of a batch; a refused key or an unsealable item writes nothing, so the rest of the batch goes on. */
  function writeItem(item: WriteItem, prepared: Prepared, at: number): ItemOutcome {
    if ('message' in prepared) return { kind: 'unsealable', message: prepared.message };
    if (item.idempotency !== undefined) {
      const row = statements.findKey.get(item.idempotency.key, at - init.idempotencyTtlMs) as { fingerprint: string; response: string } | undefined;
      if (row !== undefined) return row.fingerprint === item.idempotency.fingerprint ? { kind: 'replayed', responseJson: row.response } : { kind: 'conflict' };
      statements.insertKey.run(item.idempotency.key, at, item.idempotency.fingerprint, JSON.stringify(item.response));
    }
    for (const action of prepared.actions) writeAction(action, at);
    return { kind: 'committed', suspicious: prepared.suspicious };
  }

  function writeAction(action: Action, at: number): void {
    if (action.kind === 'wake') {
      statements.insertEvent.run(at, action.text, action.mode, action.origin.hook, action.origin.mappingId ?? null);
    } else {
      statements.insertRun.run(action.runId, at, action.origin.hook, action.name, action.sessionKey, JSON.stringify(action));
    }
  }

  /**
   * All items in one transaction: committed together or, on any failure, none of them. Sealing
   * happens before BEGIN, so the write lock is held only for the inserts and the commit.
   */
  function commit(items: readonly WriteItem[], at: number): WriterReply {
    const prepared = items.map(prepareItem);
    try {
      db.exec('BEGIN IMMEDIATE');
      const outcomes = items.map((item, index) => writeItem(item, prepared[index] as Prepared, at));
      if (crashArmed) process.exit(CRASH_EXIT_CODE);
      db.exec('COMMIT');
      return { type: 'committed', outcomes };
    } catch (error) {
      rollback();
      return { type: 'failed', message: (error as Error).message, writable: probe() };
    }
  }

  function rollback(): void {
    try {
      if (db.isTransaction) db.exec('ROLLBACK');
    } catch {
      // SQLite already rolled back (it does after some I/O errors)
    }
  }

  /** Can a write that needs fresh pages happen now? Nothing reaches the file: it is rolled back. */
  function probe(): boolean {
    try {
      db.exec('BEGIN IMMEDIATE');
      statements.probe.run(PROBE_KEY, probeValue);
      return true;
    } catch {
      return false;
    } finally {
      rollback();
    }
  }

  function setPragma(name: string, value: number | boolean): WriterReply {
    if (name === 'max_page_count' && typeof value === 'number' && Number.isSafeInteger(value) && value > 0) {
      db.exec(`PRAGMA max_page_count = ${value}`);
    } else if (name === 'query_only' && typeof value === 'boolean') {
      db.exec(`PRAGMA query_only = ${value ? 'ON' : 'OFF'}`);
    } else {
      return { type: 'error', message: `pragma ${name} = ${String(value)} is not allowed` };
    }
    return { type: 'probed', writable: probe() };
  }

  function handle(request: WriterRequest): WriterReply {
    switch (request.type) {
      case 'commit':
        return commit(request.items, request.at);
      case 'purge':
        return { type: 'purged', changes: Number(statements.purgeKeys.run(request.cutoff, request.limit).changes) };
      case 'probe':
        return { type: 'probed', writable: probe() };
      case 'pragma':
        return setPragma(request.name, request.value);
      case 'crash-next-commit':
        crashArmed = true;
        return { type: 'done' };
      case 'close':
        db.close();
        return { type: 'done' };
    }
  }

  port.on('message', ({ id, body }: RequestEnvelope) => {
    let reply: WriterReply;
    try {
      reply = handle(body);
    } catch (error) {
      reply = { type: 'error', message: (error as Error).message };
    }
    port.postMessage({ id, body: reply });
    // Closing the port lets the thread end once the reply is on its way.
    if (body.type === 'close') port.close();
  });
}

if (parentPort === null) throw new Error('writer-thread.ts runs as a worker thread of the ingress store');
serve(parentPort, workerData as WriterInit);
