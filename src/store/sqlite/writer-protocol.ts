import type { AdmittedAction } from '../../actions/types.js';
import type { RateHitRequest } from '../limit-types.js';
import type { JoinItem, JoinResult } from './debounce-join.js';

/**
 * The messages between the main thread and the store's writer thread (writer-thread.ts). Only
 * plain data crosses (structured clone): the actions go as objects and the writer seals them (the
 * envelope) and serialises them for their rows, which keeps that per-byte work off the main thread.
 */

/** What the writer thread is started with (its workerData). */
export interface WriterInit {
  /** The SQLite file; the main thread already created it and ran the migrations. */
  path: string;
  synchronous: 'full' | 'normal';
  idempotencyTtlMs: number;
  /** Bytes the write probe inserts and rolls back: enough to need fresh pages on a full disk. */
  probeBytes: number;
  busyTimeoutMs: number;
  /** After this long without a request, the writer checkpoints (the event loop's connections never do); 0: never. */
  idleCheckpointMs: number;
}

export interface WriteItem {
  /** Sealed by the writer (envelope, suspicious-pattern scan) before they are written. */
  actions: readonly AdmittedAction[];
  /** The response the caller gets; stored with the key for replays. */
  response: unknown;
  idempotency?: { key: string; fingerprint: string };
  /** The mapping's rateLimit, counted in the commit's transaction: a refused hit writes nothing of the item. */
  rateHit?: RateHitRequest;
}

export type WriterRequest =
  | { type: 'commit'; at: number; items: WriteItem[] }
  /** Debounce joins (src/store/sqlite/debounce-join.ts), in one transaction of their own. */
  | { type: 'join'; items: JoinItem[] }
  | { type: 'purge'; cutoff: number; limit: number }
  | { type: 'probe' }
  | { type: 'close' }
  /**
   * A request only a writer started with an extension answers (tests inject faults this way:
   * test/store/support/); the production writer refuses it with an `error` reply.
   */
  | { type: 'extension'; name: string; value?: unknown };

export type { ItemOutcome } from '../acceptance-outcomes.js';
import type { ItemOutcome } from '../acceptance-outcomes.js';

export type WriterReply =
  /** `transaction`: the writer's count of its commits; batches merged into one transaction share it. */
  | { type: 'committed'; transaction: number; outcomes: ItemOutcome[] }
  /** The whole transaction was rolled back; `writable` is a probe taken right after. */
  | { type: 'failed'; message: string; writable: boolean }
  /** One result per join item, in order. */
  | { type: 'joined'; results: JoinResult[] }
  | { type: 'purged'; changes: number }
  | { type: 'probed'; writable: boolean }
  | { type: 'done' }
  | { type: 'error'; message: string };

export interface RequestEnvelope {
  id: number;
  body: WriterRequest;
}

export interface ReplyEnvelope {
  id: number;
  body: WriterReply;
}
