/**
 * The store's writer thread: it owns the ingress write connection, seals the actions' untrusted
 * content (the pipeline's seal stage, src/actions/seal.ts) and commits the batches the main thread
 * sends, so neither that per-byte work nor an fsync blocks the event loop that parses requests.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { sealAction, type SealedAction } from '../../actions/seal.js';
import { runRowOf } from '../run-insert.js';
import type { ItemOutcome, ReplyEnvelope, RequestEnvelope, WriteItem, WriterInit, WriterReply, WriterRequest } from './writer-protocol.js';
import { mergeConsecutiveCommits, type WriterStep } from './writer-merge.js';
import { createTransactionBuckets, type TransactionBuckets } from './transaction-buckets.js';
import { joinAll, type JoinItem } from './debounce-join.js';
import { whileLocked } from './writer-lock.js';

const PROBE_KEY = 'hookgate.readiness-probe';

type Statements = Record<'insertEvent' | 'insertRun' | 'insertKey' | 'findKey' | 'purgeKeys' | 'probe', StatementSync>;
type Batch = { id: number; at: number; items: readonly WriteItem[] };

/** The writer's connection and what it can do besides committing, as an extension sees it. */
export interface WriterConnection {
  db: DatabaseSync;
  /** BEGIN IMMEDIATE, waiting (briefly, see writer-lock.ts) while another connection writes. */
  begin(): void;
  /** COMMIT, likewise. */
  commit(): void;
  /** Can a write that needs fresh pages happen now? Nothing reaches the file: it is rolled back. */
  probe(): boolean;
}

/**
 * What a writer started with an extension does besides the production work: tests inject faults
 * this way (test/store/support/faulty-writer-thread.ts). The production entry passes none.
 */
export interface WriterExtension {
  /** Runs inside each commit's transaction after its rows are written, before COMMIT. */
  beforeCommit?: () => void;
  /** Answers an `extension` request. */
  handle?: (request: { name: string; value?: unknown }, writer: WriterConnection) => WriterReply;
}

export function serveWriter(port: MessagePort, init: WriterInit, extension: WriterExtension = {}): void {
  const db = openConnection(init);
  const statements = prepareStatements(db);
  const begin = (): void => whileLocked(() => db.exec('BEGIN IMMEDIATE'), init.busyTimeoutMs);
  const commitNow = (): void => whileLocked(() => db.exec('COMMIT'), init.busyTimeoutMs);
  const connection: WriterConnection = { db, begin, commit: commitNow, probe: createProbe(db, begin, statements, init.probeBytes) };
  // Paces the sweep of spent rate buckets across all of this writer's transactions.
  const rateHits = { hits: 0 };
  const commit = createCommitter(connection, statements, init, extension.beforeCommit ?? (() => undefined), rateHits);
  const handle = (request: Exclude<WriterRequest, { type: 'commit' }>): WriterReply =>
    handleRequest(request, connection, statements, extension, { ttlMs: init.idempotencyTtlMs, rateHits, busyTimeoutMs: init.busyTimeoutMs });
  const idle = startIdleCheckpoints(db, init.idleCheckpointMs);
  // Everything already waiting in the queue is taken at once, so the batches the main thread sent
  // while the last commit ran become one transaction.
  port.on('message', (first: RequestEnvelope) => {
    idle.busy();
    for (const step of mergeConsecutiveCommits(drain(port, first))) {
      if (step.kind === 'single' && step.request.type === 'close') idle.stop();
      for (const reply of runStep(step, commit, handle)) port.postMessage(reply);
      if (step.kind === 'single' && step.request.type === 'close') {
        // Closing the port lets the thread end once the reply is on its way; nothing follows a close.
        port.close();
        return;
      }
    }
  });
}

function drain(port: MessagePort, first: RequestEnvelope): RequestEnvelope[] {
  const waiting = [first];
  for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) waiting.push(next.message as RequestEnvelope);
  return waiting;
}

function runStep(
  step: WriterStep,
  commit: (batches: readonly Batch[]) => ReplyEnvelope[],
  handle: (request: Exclude<WriterRequest, { type: 'commit' }>) => WriterReply,
): ReplyEnvelope[] {
  if (step.kind === 'commits') return commit(step.batches);
  try {
    return [{ id: step.id, body: handle(step.request) }];
  } catch (error) {
    return [{ id: step.id, body: { type: 'error', message: (error as Error).message } }];
  }
}

function openConnection(init: WriterInit): DatabaseSync {
  // No busy timeout: every write waits for the lock through whileLocked (writer-lock.ts).
  const db = new DatabaseSync(init.path, { timeout: 0 });
  db.exec(`PRAGMA synchronous = ${init.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // The service's only connection that checkpoints (the event loop's never do): SQLite's own, at a
  // commit that finds ~4 MB in the WAL, whoever wrote the frames, and startIdleCheckpoints's.
  db.exec('PRAGMA wal_autocheckpoint = 1000');
  return db;
}

/**
 * While the writer commits, its commits checkpoint; when it has none (no requests coming in) the
 * runtime's writes on the event loop still fill the WAL, so after `everyMs` without a request it
 * checkpoints them (PASSIVE: it never waits for a reader or a writer, and does nothing when every
 * frame is in the database file already).
 */
function startIdleCheckpoints(db: DatabaseSync, everyMs: number): { busy(): void; stop(): void } {
  if (!(everyMs > 0)) return { busy: () => undefined, stop: () => undefined };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) {
      busy = false;
      return;
    }
    try {
      db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch {
      // An I/O error shows at the next commit too; the next tick tries again.
    }
  }, everyMs);
  // The thread ends when its port closes, not kept by this.
  timer.unref();
  return {
    busy: () => void (busy = true),
    stop: () => clearInterval(timer),
  };
}

function prepareStatements(db: DatabaseSync): Statements {
  return {
    insertEvent: db.prepare('INSERT INTO events (created_at, text, mode, hook, mapping_id, trusted) VALUES (?, ?, ?, ?, ?, ?)'),
    insertRun: db.prepare(
      "INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, kind, relay_target) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?)",
    ),
    // REPLACE: an expired key that maintenance has not purged yet is free again (findKey ignores it).
    insertKey: db.prepare('INSERT OR REPLACE INTO idempotency (key, created_at, fingerprint, response) VALUES (?, ?, ?, ?)'),
    findKey: db.prepare('SELECT fingerprint, response FROM idempotency WHERE key = ? AND created_at > ?'),
    purgeKeys: db.prepare('DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE created_at <= ? LIMIT ?)'),
    probe: db.prepare('INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)'),
  };
}

function rollback(db: DatabaseSync): void {
  try {
    if (db.isTransaction) db.exec('ROLLBACK');
  } catch {
    // SQLite already rolled back (it does after some I/O errors)
  }
}

function createProbe(db: DatabaseSync, begin: () => void, statements: Statements, probeBytes: number): () => boolean {
  const probeValue = 'x'.repeat(probeBytes);
  return () => {
    try {
      begin();
      statements.probe.run(PROBE_KEY, probeValue);
      return true;
    } catch {
      return false;
    } finally {
      rollback(db);
    }
  };
}

/** An item's actions sealed, or why they cannot be (that item alone is refused). */
type Prepared = { sealed: SealedAction[]; suspicious: string[][]; invisible: number[] } | { message: string };

function sealItem(item: WriteItem): Prepared {
  try {
    const sealed = item.actions.map(sealAction);
    return { sealed, suspicious: sealed.map((s) => s.suspicious), invisible: sealed.map((s) => s.invisible) };
  } catch (error) {
    return { message: (error as Error).message };
  }
}

/**
 * The items of several batches in one transaction: committed together or, on any failure, none
 * of them; one reply per batch. Sealing happens before BEGIN, so the write lock is held only for
 * the inserts and the commit.
 */
function createCommitter(connection: WriterConnection, statements: Statements, init: WriterInit, beforeCommit: () => void, rateHits: { hits: number }) {
  const { db, probe } = connection;
  const write = createItemWriter(statements, init.idempotencyTtlMs);
  let transactions = 0;
  return (batches: readonly Batch[]): ReplyEnvelope[] => {
    const prepared = batches.map((batch) => batch.items.map(sealItem));
    try {
      connection.begin();
      const buckets = createTransactionBuckets(db, rateHits);
      const outcomes = batches.map((batch, b) => batch.items.map((item, i) => write(item, prepared[b]?.[i] as Prepared, batch.at, buckets)));
      buckets.flush();
      beforeCommit();
      connection.commit();
      transactions += 1;
      return batches.map((batch, b) => ({ id: batch.id, body: { type: 'committed', transaction: transactions, outcomes: outcomes[b] ?? [] } }));
    } catch (error) {
      rollback(db);
      const failed: WriterReply = { type: 'failed', message: (error as Error).message, writable: probe() };
      return batches.map((batch) => ({ id: batch.id, body: failed }));
    }
  };
}

/** One item of a batch; a refused key or an unsealable item writes nothing, so the rest of the batch goes on. */
function createItemWriter(statements: Statements, idempotencyTtlMs: number) {
  function writeAction({ action, trusted }: SealedAction, at: number): void {
    const run = runRowOf(action);
    if (run !== undefined) statements.insertRun.run(run.runId, at, run.hook, run.name, run.sessionKey, run.action, run.kind, run.relayTarget);
    else if (action.kind === 'wake') statements.insertEvent.run(at, action.text, action.mode, action.origin.hook, action.origin.mappingId ?? null, trusted ? 1 : 0);
  }
  /** A key used before answers for the item (a replay is not counted against its rate limit again). */
  function judgeKey(item: WriteItem, at: number): ItemOutcome | undefined {
    if (item.idempotency === undefined) return undefined;
    const row = statements.findKey.get(item.idempotency.key, at - idempotencyTtlMs) as { fingerprint: string; response: string } | undefined;
    if (row === undefined) return undefined;
    return row.fingerprint === item.idempotency.fingerprint ? { kind: 'replayed', responseJson: row.response } : { kind: 'conflict' };
  }
  /** Counted before any write of the item, so a refused one leaves nothing, not even its key. */
  function judgeRate(item: WriteItem, buckets: TransactionBuckets): ItemOutcome | undefined {
    if (item.rateHit === undefined) return undefined;
    const verdict = buckets.hit(item.rateHit);
    return verdict.allowed ? undefined : { kind: 'rate-limited', retryAfterMs: verdict.retryAfterMs };
  }
  return (item: WriteItem, prepared: Prepared, at: number, buckets: TransactionBuckets): ItemOutcome => {
    if ('message' in prepared) return { kind: 'unsealable', message: prepared.message };
    const refused = judgeKey(item, at) ?? judgeRate(item, buckets);
    if (refused !== undefined) return refused;
    if (item.idempotency !== undefined) statements.insertKey.run(item.idempotency.key, at, item.idempotency.fingerprint, JSON.stringify(item.response));
    for (const sealed of prepared.sealed) writeAction(sealed, at);
    return { kind: 'committed', suspicious: prepared.suspicious, invisible: prepared.invisible };
  };
}

function handleRequest(
  request: Exclude<WriterRequest, { type: 'commit' }>,
  connection: WriterConnection,
  statements: Statements,
  extension: WriterExtension,
  joins: { ttlMs: number; rateHits: { hits: number }; busyTimeoutMs: number },
): WriterReply {
  switch (request.type) {
    case 'join':
      return joinInTransaction(connection, request.items, joins.ttlMs, joins.rateHits);
    case 'purge':
      return { type: 'purged', changes: Number(whileLocked(() => statements.purgeKeys.run(request.cutoff, request.limit), joins.busyTimeoutMs).changes) };
    case 'probe':
      return { type: 'probed', writable: connection.probe() };
    case 'extension':
      if (extension.handle === undefined) return { type: 'error', message: `this writer has no extension to answer "${request.name}"` };
      return extension.handle(request, connection);
    case 'close':
      connection.db.close();
      return { type: 'done' };
  }
}

/** A batch of debounce joins: all in one transaction or, on a failure, none (the probe says whether the store can write). */
function joinInTransaction(connection: WriterConnection, items: readonly JoinItem[], idempotencyTtlMs: number, rateHits: { hits: number }): WriterReply {
  const { db } = connection;
  try {
    connection.begin();
    const buckets = createTransactionBuckets(db, rateHits);
    const results = items.map((item) => joinAll(db, item.acceptance, item.at, idempotencyTtlMs, buckets));
    buckets.flush();
    connection.commit();
    return { type: 'joined', results };
  } catch (error) {
    rollback(db);
    return { type: 'failed', message: (error as Error).message, writable: connection.probe() };
  }
}
