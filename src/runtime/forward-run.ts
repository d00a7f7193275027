import type { Logger } from '../log.js';
import type { FinishedStatus, HandoffRecord, RunRow, TargetAnswer } from '../store/port.js';
import { callbackOf, parseCallbackAction } from './callback.js';
import type { Clock } from './clock.js';
import { retryVerdict } from './forward-retry.js';
import type { ForwardedAction, RuntimeObserver, RuntimeStore, TargetPort } from './ports.js';
import { singleLine, truncate } from './summary.js';

export interface ForwardRunDeps {
  store: RuntimeStore;
  clock: Clock;
  logger: Logger;
  targets: ReadonlyMap<string, TargetPort>;
  /** Aborted by Runtime.stop(): a POST in flight is cut and the run resumes at the next start. */
  signal: AbortSignal;
  /** A run sent back to wait: wake the queue then. */
  wakeAt: (at: number) => void;
  /** Counts the target's answer against its circuit (retryable failures open it). */
  recordOutcome?: (target: string, failed: boolean) => void;
  observer?: RuntimeObserver;
}

/** What a forward or callback run sends, and to whom. */
interface Job {
  target: string;
  label: 'Forward' | 'Callback';
  send(port: TargetPort, id: string, signal: AbortSignal): Promise<TargetAnswer> | undefined;
  action?: ForwardedAction;
}

/**
 * One claimed forward or callback run (docs/forward.md): one POST to its target. Accepted → ok;
 * refused (the request is wrong) → error with the target's answer; anything retryable → queued
 * again until its retry is due, until the target's retry limits end it as error. The run's end,
 * its handoff record and its callback are one commit.
 */
export async function executeForward(deps: ForwardRunDeps, row: RunRow): Promise<void> {
  const job = readJob(row);
  const port = job === undefined ? undefined : deps.targets.get(job.target);
  if (job === undefined || port === undefined) {
    const error = job === undefined ? 'the stored action cannot be read' : `target "${job.target}" is not configured`;
    return end(deps, row, job, { status: 'error', error, handoff: job === undefined ? undefined : { target: job.target, reason: error } });
  }
  let answer: TargetAnswer | undefined;
  try {
    answer = await job.send(port, row.run_id, deps.signal);
  } catch (error) {
    if (!deps.signal.aborted) throw error;
  }
  if (answer === undefined) return unsent(deps, row, job, port);
  deps.recordOutcome?.(job.target, answer.kind === 'retry');
  if (answer.kind === 'retry') return retryLater(deps, row, job, port, answer);
  deps.observer?.handedOff?.(job.target, answer.kind);
  const handoff = recordOf(job.target, answer);
  if (answer.kind === 'refused') return end(deps, row, job, { status: 'error', error: `target "${job.target}" ${answer.reason}`, handoff });
  return end(deps, row, job, { status: 'ok', handoff, notes: answer.notes ?? [] });
}

/** Shut down mid-POST (the target may or may not have it: the same id goes again), or the kind cannot take it. */
async function unsent(deps: ForwardRunDeps, row: RunRow, job: Job, port: TargetPort): Promise<void> {
  if (deps.signal.aborted) {
    await deps.store.runs.suspend(row.run_id, 'interrupted by shutdown');
    deps.logger.info({ event: 'run.interrupted', runId: row.run_id, target: job.target }, 'handoff interrupted by shutdown; resumes on restart');
    return;
  }
  const what = job.label === 'Forward' ? 'forwarded actions' : 'callbacks';
  const error = `target "${job.target}" (kind ${port.kind}) takes no ${what}`;
  return end(deps, row, job, { status: 'error', error, handoff: { target: job.target, reason: error } });
}

async function retryLater(deps: ForwardRunDeps, row: RunRow, job: Job, port: TargetPort, answer: Extract<TargetAnswer, { kind: 'retry' }>): Promise<void> {
  const now = deps.clock.now();
  const verdict = retryVerdict(port.settings.retry, { attempts: row.attempts, createdAt: row.created_at }, answer.retryAfterMs, now);
  const handoff: HandoffRecord = { target: job.target, reason: answer.reason, ...(answer.status === undefined ? {} : { status: answer.status }) };
  if (verdict.kind === 'give-up') {
    deps.observer?.handedOff?.(job.target, 'gave-up');
    return end(deps, row, job, { status: 'error', error: `target "${job.target}" ${answer.reason}; ${verdict.reason}`, handoff });
  }
  deps.observer?.handedOff?.(job.target, 'retry');
  const retryAt = new Date(verdict.at).toISOString();
  await deps.store.runs.reschedule(row.run_id, { notBefore: verdict.at, error: `target "${job.target}" ${answer.reason}; retry at ${retryAt}`, handoff: { ...handoff, retryAt } });
  deps.logger.warn({ event: 'forward.retry', runId: row.run_id, target: job.target, attempt: row.attempts, status: answer.status, waitMs: verdict.at - now }, 'target did not take the run; retrying later');
  deps.wakeAt(verdict.at);
}

interface Ending {
  status: FinishedStatus;
  error?: string;
  handoff: HandoffRecord | undefined;
  notes?: string[];
}

async function end(deps: ForwardRunDeps, row: RunRow, job: Job | undefined, ending: Ending): Promise<void> {
  const at = deps.clock.now();
  const summary = summaryOf(row, job, ending);
  const followUp = callbackOf(row, job?.action, { status: ending.status, at, error: ending.error, handoff: ending.handoff });
  await deps.store.runs.finish(row.run_id, {
    status: ending.status,
    at,
    summary,
    ...(ending.error === undefined ? {} : { error: ending.error }),
    ...(ending.handoff === undefined ? {} : { handoff: ending.handoff }),
    ...(followUp === undefined ? {} : { followUp }),
    notes: ending.notes ?? [],
  });
  deps.logger.info({ event: 'run.finished', runId: row.run_id, hook: row.hook, kind: row.kind, target: job?.target, status: ending.status }, 'handoff finished');
  deps.observer?.runFinished(ending.status);
}

/** `Forward <name> → home: accepted (HTTP 200, its run 4f…)` or `Forward <name> (error): target "home" answered 400: …`. */
function summaryOf(row: RunRow, job: Job | undefined, ending: Ending): string {
  const label = `${job?.label ?? 'Forward'} ${truncate(singleLine(row.name), 120)}`;
  if (ending.status !== 'ok') return `${label} (${ending.status}): ${ending.error ?? ''}`;
  const { handoff } = ending;
  const facts = [handoff?.status === undefined ? undefined : `HTTP ${handoff.status}`, handoff?.runId === undefined ? undefined : `its run ${handoff.runId}`].filter(Boolean);
  const outcome = handoff?.outcome === undefined ? '' : `; its run ended ${handoff.outcome.status}`;
  return `${label} → ${job?.target ?? ''}: accepted${facts.length === 0 ? '' : ` (${facts.join(', ')})`}${outcome}`;
}

function recordOf(target: string, answer: Exclude<TargetAnswer, { kind: 'retry' }>): HandoffRecord {
  if (answer.kind === 'refused') return { target, status: answer.status, reason: answer.reason };
  return { target, status: answer.status, ...(answer.runId === undefined ? {} : { runId: answer.runId }), ...(answer.outcome === undefined ? {} : { outcome: answer.outcome }) };
}

function readJob(row: RunRow): Job | undefined {
  if (row.kind === 'callback') {
    const callback = parseCallbackAction(row);
    if (callback === undefined) return undefined;
    return { target: callback.target, label: 'Callback', send: (port, id, signal) => port.deliver?.({ id, document: callback.document, signal }) };
  }
  const action = parseForwarded(row.action);
  if (action === undefined) return undefined;
  return { target: action.forward, label: 'Forward', action, send: (port, id, signal) => port.handOff?.({ id, action, signal }) };
}

function parseForwarded(json: string): ForwardedAction | undefined {
  try {
    const action = JSON.parse(json) as Partial<ForwardedAction> | null;
    if (typeof action?.forward !== 'string') return undefined;
    const text = action.kind === 'wake' ? action.text : action.kind === 'agent' ? action.message : undefined;
    return typeof text === 'string' ? (action as ForwardedAction) : undefined;
  } catch {
    return undefined;
  }
}
