import type { FinishedStatus, RecordedDelivery, RunRow } from '../store/port.js';
import type { RuntimeObserver } from './ports.js';
import { deliverReply, type RoutingDeps } from './routing.js';
import { singleLine, truncate } from './summary.js';
import type { Clock } from './clock.js';
import type { RuntimeStore } from './ports.js';
import type { Logger } from '../log.js';
import { parseStoredAction } from './stored-action.js';
import { callbackOf } from './callback.js';

export interface NotifyRunDeps {
  store: RuntimeStore;
  clock: Clock;
  routing: RoutingDeps;
  logger: Logger;
  observer?: RuntimeObserver;
}

/**
 * One claimed notify: its text goes to its channel with the channels' retries, as sender data
 * (neutralised whatever the channel's markup setting). No model, no transcript, no summary event
 * and no heartbeat: the delivery outcome is the whole run. A shutdown mid-way leaves the run to
 * the next start, like an agent run.
 */
export async function executeNotify(deps: NotifyRunDeps, row: RunRow): Promise<void> {
  const action = parseStoredAction(row, 'notify');
  const startedAt = deps.clock.now();
  let delivery: RecordedDelivery;
  if (action === undefined) {
    delivery = { status: 'failed', channel: 'unknown', reason: 'the stored action cannot be read', attempts: 0 };
  } else {
    const request = { channel: action.channel, text: action.text, runId: row.run_id, untrusted: true, ...(action.to === undefined ? {} : { to: action.to }) };
    delivery = await deliverReply(deps.routing, request);
  }
  if (delivery.status === 'failed' && deps.routing.signal.aborted) {
    await deps.store.runs.suspend(row.run_id, 'interrupted by shutdown');
    deps.logger.info({ event: 'run.interrupted', runId: row.run_id, attempts: row.attempts }, 'notify interrupted by shutdown; resumes on restart');
    return;
  }
  const status: FinishedStatus = delivery.status === 'delivered' ? 'ok' : 'error';
  const summary = notifySummary(row.name, delivery);
  const at = deps.clock.now();
  // The end, its delivery and its callback in one transaction: a crash cannot leave a finished notify without them.
  const error = delivery.status === 'failed' ? delivery.reason : undefined;
  const followUp = callbackOf(row, action, { status, at, error });
  await deps.store.runs.finish(row.run_id, { status, at, summary, delivery, ...(error === undefined ? {} : { error }), ...(followUp === undefined ? {} : { followUp }) });
  deps.logger.info({ event: 'run.finished', runId: row.run_id, hook: row.hook, kind: 'notify', status, ms: at - startedAt }, 'notify finished');
  deps.observer?.runFinished(status);
}

/** `Notify <name>: delivered to telegram (1 part)` or `Notify <name> (error): <reason>`: what run lists show. */
function notifySummary(name: string, delivery: RecordedDelivery): string {
  const label = truncate(singleLine(name), 120) || 'notify';
  if (delivery.status === 'delivered') return `Notify ${label}: delivered to ${delivery.channel} (${delivery.parts} part${delivery.parts === 1 ? '' : 's'})`;
  return `Notify ${label} (error): ${delivery.reason}`;
}
