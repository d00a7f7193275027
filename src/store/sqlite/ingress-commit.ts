import { HookError } from '../../errors.js';
import type { AdmittedAction } from '../../actions/types.js';
import type { Logger } from '../../log.js';
import type { Acceptance, AcceptOutcome } from '../port.js';
import type { WriterClient } from './writer-client.js';
import { settleAcceptances, type PendingAcceptance } from '../acceptance-outcomes.js';

type Pending = PendingAcceptance;

export interface CommitQueueDeps {
  now: () => number;
  logger: Logger;
  /** The writability the writer probed right after a failed commit. */
  onFailedProbe: (writable: boolean) => void;
  /** Told after each commit with the actions it made durable. */
  listeners: ReadonlySet<(actions: readonly AdmittedAction[]) => void>;
}

export interface CommitQueue {
  /** Resolves once the acceptance's transaction committed (or found its key replayed). */
  enqueue(acceptance: Acceptance): Promise<AcceptOutcome>;
  /** Sends what is queued and waits until every batch sent was answered. */
  drain(): Promise<void>;
  /** Commit transactions acknowledged so far. */
  count(): number;
  /** A new writer thread counts its transactions from 1 again. */
  writerRestarted(): void;
}

/**
 * Group commit: acceptances queue on the main thread and leave as one batch per turn of the event
 * loop, without waiting for earlier batches; the writer merges every batch waiting in its queue
 * into one transaction, and each caller is answered only after that transaction committed. So
 * transactions grow with the load and the event loop never waits on the disk. A failed commit
 * rolls everything in it back and fails each caller with STORE_UNAVAILABLE: nothing half-written.
 */
export function createCommitQueue(writer: WriterClient, deps: CommitQueueDeps): CommitQueue {
  let queue: Pending[] = [];
  let scheduled = false;
  /** Batches sent and not yet answered; the writer answers in order, so the last one settles last. */
  let inFlight = 0;
  let lastSent: Promise<void> = Promise.resolve();
  const transactions = { count: 0, last: 0 };

  function sendNext(): void {
    scheduled = false;
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    inFlight += 1;
    lastSent = commitBatch(batch).finally(() => {
      inFlight -= 1;
    });
  }

  async function commitBatch(batch: readonly Pending[]): Promise<void> {
    try {
      const reply = await writer.request({ type: 'commit', at: deps.now(), items: batch.map((item) => item.acceptance) });
      if (reply.type === 'committed') {
        if (reply.transaction !== transactions.last) transactions.count += 1;
        transactions.last = reply.transaction;
        return settleAcceptances(batch, reply.outcomes, deps);
      }
      if (reply.type === 'failed') deps.onFailedProbe(reply.writable);
      throw new Error(reply.type === 'failed' || reply.type === 'error' ? reply.message : `unexpected reply ${reply.type}`);
    } catch (error) {
      deps.logger.error({ event: 'store.commit_failed', err: (error as Error).message, batch: batch.length }, 'store commit failed');
      const refusal = toStoreError(error);
      for (const item of batch) item.reject(refusal);
    }
  }

  return {
    enqueue(acceptance) {
      return new Promise<AcceptOutcome>((resolve, reject) => {
        queue.push({ acceptance, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(sendNext);
        }
      });
    },
    async drain() {
      while (inFlight > 0 || queue.length > 0) {
        sendNext();
        await lastSent;
      }
    },
    count: () => transactions.count,
    writerRestarted() {
      transactions.last = 0;
    },
  };
}

export function toStoreError(error: unknown): HookError {
  if (error instanceof HookError) return error;
  return new HookError('STORE_UNAVAILABLE', 'the store cannot accept requests right now, retry later', {
    retryAfterSeconds: 5,
    cause: error,
  });
}
