/**
 * Entry of the store's writer thread: it owns the ingress write connection, seals the actions'
 * untrusted content (the envelope) and commits the batches the main thread sends, so neither that
 * per-byte work nor an fsync blocks the event loop that parses requests.
 *
 * Run from dist/ (bundled) or from the sources with bin/source-hooks.js as `--import`.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { sealAction, type SealedAction } from '../actions/seal.js';
import type { ItemOutcome, ReplyEnvelope, RequestEnvelope, WriteItem, WriterInit, WriterReply, WriterRequest } from './writer-protocol.js';
import { mergeConsecutiveCommits, type WriterStep } from './writer-merge.js';

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
    insertEvent: db.prepare('INSERT INTO events (created_at, text, mode, hook, mapping_id, trusted) VALUES (?, ?, ?, ?, ?, ?)'),
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
  type Prepared = { sealed: SealedAction[]; suspicious: string[][] } | { message: string };

  function prepareItem(item: WriteItem): Prepared {
    try {
      const sealed = item.actions.map(sealAction);
      return { sealed, suspicious: sealed.map((s) => s.suspicious) };
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
    for (const sealed of prepared.sealed) writeAction(sealed, at);
    return { kind: 'committed', suspicious: prepared.suspicious };
  }

  function writeAction({ action, trusted }: SealedAction, at: number): void {
    if (action.kind === 'wake') {
      statements.insertEvent.run(at, action.text, action.mode, action.origin.hook, action.origin.mappingId ?? null, trusted ? 1 : 0);
    } else {
      statements.insertRun.run(action.runId, at, action.origin.hook, action.name, action.sessionKey, JSON.stringify(action));
    }
  }

  let transactions = 0;

  /**
   * The items of several batches in one transaction: committed together or, on any failure, none
   * of them; one reply per batch. Sealing happens before BEGIN, so the write lock is held only for
   * the inserts and the commit.
   */
  function commit(batches: ReadonlyArray<{ id: number; at: number; items: readonly WriteItem[] }>): ReplyEnvelope[] {
    const prepared = batches.map((batch) => batch.items.map(prepareItem));
    try {
      db.exec('BEGIN IMMEDIATE');
      const outcomes = batches.map((batch, b) => batch.items.map((item, i) => writeItem(item, prepared[b]?.[i] as Prepared, batch.at)));
      if (crashArmed) process.exit(CRASH_EXIT_CODE);
      db.exec('COMMIT');
      transactions += 1;
      return batches.map((batch, b) => ({ id: batch.id, body: { type: 'committed', transaction: transactions, outcomes: outcomes[b] ?? [] } }));
    } catch (error) {
      rollback();
      const failed: WriterReply = { type: 'failed', message: (error as Error).message, writable: probe() };
      return batches.map((batch) => ({ id: batch.id, body: failed }));
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

  function handle(request: Exclude<WriterRequest, { type: 'commit' }>): WriterReply {
    switch (request.type) {
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

  function run(step: WriterStep): void {
    if (step.kind === 'commits') {
      for (const reply of commit(step.batches)) port.postMessage(reply);
      return;
    }
    let reply: WriterReply;
    try {
      reply = handle(step.request);
    } catch (error) {
      reply = { type: 'error', message: (error as Error).message };
    }
    port.postMessage({ id: step.id, body: reply });
  }

  // Everything already waiting in the queue is taken at once, so the batches the main thread sent
  // while the last commit ran become one transaction.
  port.on('message', (first: RequestEnvelope) => {
    const waiting = [first];
    for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) waiting.push(next.message as RequestEnvelope);
    for (const step of mergeConsecutiveCommits(waiting)) {
      run(step);
      if (step.kind === 'single' && step.request.type === 'close') {
        // Closing the port lets the thread end once the reply is on its way; nothing follows a close.
        port.close();
        return;
      }
    }
  });
}

if (parentPort === null) throw new Error('writer-thread.ts runs as a worker thread of the ingress store');
serve(parentPort, workerData as WriterInit);
