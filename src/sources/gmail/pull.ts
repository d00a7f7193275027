import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../log.js';
import { exponentialDelay } from '../../retry.js';
import { decodeData, PubsubEnvelopeError } from './envelope.js';
import type { NotificationProcessor } from './processor.js';
import type { PubsubApi } from './pubsub-api.js';

export interface PullLoopDeps {
  pubsub: PubsubApi;
  subscription: string;
  processor: NotificationProcessor;
  logger: Logger;
  /** A failure that ends the loop (a revoked grant): reported once, not retried. */
  onFatal: (error: Error) => void;
  onError: (error: Error) => void;
  /** Wait after a failed round; tests inject one that does not sleep. */
  delay?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const BATCH = 10;
const MAX_BACKOFF_MS = 60_000;
const IDLE_MS = 1000;

/**
 * Pulls notifications and acknowledges each only after its messages were durably admitted. A
 * notification that failed stays unacknowledged (Pub/Sub delivers it again) and the loop backs off.
 * Returns a stop function that ends the loop and its pending pull.
 */
export function startPullLoop(deps: PullLoopDeps): { stop: () => Promise<void>; done: Promise<void> } {
  const controller = new AbortController();
  const delay = deps.delay ?? ((ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined));
  const done = (async () => {
    let failures = 0;
    while (!controller.signal.aborted) {
      try {
        const round = await pullRound(deps, controller.signal);
        failures = round === 'failed' ? failures + 1 : 0;
        // Google holds a pull open until messages come, but may answer empty early: do not spin.
        if (round === 'empty') await delay(IDLE_MS, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) break;
        if ((error as { fatal?: unknown }).fatal === true) return deps.onFatal(error as Error);
        deps.onError(error as Error);
        failures += 1;
      }
      if (failures > 0) await delay(exponentialDelay(failures - 1, 1000, MAX_BACKOFF_MS), controller.signal);
    }
  })();
  return {
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

/** One pull and its acknowledgments; `failed` when a notification could not be admitted. */
async function pullRound(deps: PullLoopDeps, signal: AbortSignal): Promise<'empty' | 'done' | 'failed'> {
  const received = await deps.pubsub.pull(deps.subscription, BATCH, signal);
  if (received.length === 0) return 'empty';
  const acks: string[] = [];
  let failed = false;
  for (const { ackId, message } of received) {
    let notification;
    try {
      notification = decodeData(message.data ?? '');
    } catch (error) {
      if (!(error instanceof PubsubEnvelopeError)) throw error;
      deps.logger.warn({ event: 'gmail.notification_invalid', reason: error.message }, 'an undecodable Pub/Sub message was acknowledged and dropped');
      acks.push(ackId); // it can never become valid: keeping it would block nothing but retry forever
      continue;
    }
    try {
      await deps.processor.process(notification);
      acks.push(ackId);
    } catch (error) {
      if ((error as { fatal?: unknown }).fatal === true) {
        await deps.pubsub.acknowledge(deps.subscription, acks);
        throw error;
      }
      deps.onError(error as Error);
      failed = true;
      break; // later ones are redelivered too, in order
    }
  }
  await deps.pubsub.acknowledge(deps.subscription, acks);
  return failed ? 'failed' : 'done';
}
