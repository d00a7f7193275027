import { retryDelay } from '../../retry.js';
import type { AckAnswer } from '../wire.js';
import type { EdgeApi, EdgeOutcome } from './edge-api.js';
import { handToLocalTarget, type HandoffDeps, type LocalOutcome } from './handoff.js';
import type { RelayProgress } from './progress.js';

/** Waits between tries to reach the edge (its Retry-After too): from a second to half a minute. */
export const EDGE_RETRY = { baseMs: 1000, maxMs: 30_000 } as const;

export interface ConsumerOptions extends Omit<HandoffDeps, 'tries'> {
  api: EdgeApi;
  waitSeconds: number;
  max: number;
  progress: RelayProgress;
}

export type ConsumerEnd = { kind: 'stopped' } | { kind: 'refused'; status: number; code: string | undefined; message: string };

/**
 * `hookgate relay`'s loop (docs/relay.md): pull the next events (a long poll), hand each to the
 * local target in order, acknowledge each one on the edge once the target took it (or refused it
 * for good). Nothing is kept on disk: an event not acknowledged is leased again, to this consumer
 * or another, and the target dedupes on the event id. The edge or the network away: back off and
 * try again; a refusal that asking again cannot change (a wrong token): end. Resolves when
 * `signal` aborts, after a last try to acknowledge what was taken.
 */
export async function runConsumer(options: ConsumerOptions): Promise<ConsumerEnd> {
  const pending: { ids: string[]; refused: Array<{ id: string; reason: string }> } = { ids: [], refused: [] };
  const tries = new Map<string, number>();
  let failures = 0;
  const backOff = async (outcome: Extract<EdgeOutcome<unknown>, { kind: 'unavailable' }>): Promise<void> => {
    failures += 1;
    const wait = retryDelay(failures, outcome.retryAfterMs, EDGE_RETRY);
    options.progress.unavailable(outcome.reason, wait);
    await options.sleep(wait, options.signal);
  };
  try {
    while (!options.signal.aborted) {
      const flushed = await flush(options, pending, options.signal);
      if (flushed.kind === 'refused') return { kind: 'refused', status: flushed.status, code: flushed.code, message: flushed.message };
      if (flushed.kind === 'unavailable') {
        await backOff(flushed);
        continue;
      }
      const pulled = await options.api.pull(options.waitSeconds, options.max, options.signal);
      if (pulled.kind === 'refused') return { kind: 'refused', status: pulled.status, code: pulled.code, message: pulled.message };
      if (pulled.kind === 'unavailable') {
        await backOff(pulled);
        continue;
      }
      failures = 0;
      options.progress.pulled(pulled.answer.events.length, pulled.answer.backlog);
      const later = await handBatch(options, pulled.answer.events, pending, tries);
      if (later !== undefined) await options.sleep(later, options.signal);
    }
  } catch (error) {
    if (!options.signal.aborted) throw error;
  }
  // Stopping: what the target took is acknowledged if the edge answers soon; else it comes back and is deduped.
  await flush(options, pending, AbortSignal.timeout(5000)).catch(() => undefined);
  return { kind: 'stopped' };
}

/** Hands a pull's events over in order; stops at one the target cannot take now (the rest keep their order). Resolves with the wait before pulling again then. */
async function handBatch(options: ConsumerOptions, events: Parameters<typeof handToLocalTarget>[0][], pending: { ids: string[]; refused: Array<{ id: string; reason: string }> }, tries: Map<string, number>): Promise<number | undefined> {
  for (const event of events) {
    const outcome: LocalOutcome = await handToLocalTarget(event, { ...options, tries });
    options.progress.handed(event, outcome);
    if (outcome.kind === 'later') return outcome.waitMs;
    tries.delete(event.id);
    if (outcome.kind === 'taken') pending.ids.push(event.id);
    else pending.refused.push({ id: event.id, reason: outcome.reason });
    // Acknowledged at once: a crash now leaves at most the next event to be handed over twice.
    const flushed = await flush(options, pending, options.signal);
    if (flushed.kind === 'refused') return undefined;
  }
  return undefined;
}

/** Sends the acknowledgements not sent yet; keeps them for the next try when the edge does not answer. */
async function flush(options: ConsumerOptions, pending: { ids: string[]; refused: Array<{ id: string; reason: string }> }, signal: AbortSignal): Promise<EdgeOutcome<unknown>> {
  if (pending.ids.length === 0 && pending.refused.length === 0) return { kind: 'ok', answer: undefined };
  const [ids, refused] = [pending.ids.splice(0), pending.refused.splice(0)];
  const keep = (): void => {
    pending.ids.unshift(...ids);
    pending.refused.unshift(...refused);
  };
  let outcome: EdgeOutcome<AckAnswer>;
  try {
    outcome = await options.api.ack(ids, refused, signal);
  } catch (error) {
    keep(); // cut by the stop: the last try after it sends them
    throw error;
  }
  if (outcome.kind === 'unavailable') {
    keep();
    return outcome;
  }
  if (outcome.kind === 'ok') for (const { id, result } of outcome.answer.results) if (result !== 'acked' && result !== 'already-acked') options.progress.ackNote(id, result);
  return outcome;
}
