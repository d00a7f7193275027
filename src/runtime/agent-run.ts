import type { AgentAction } from '../actions/types.js';
import type { FinishedStatus, RunFinish, RunRow } from '../store/port.js';
import { ACK_SKIP_REASON, isHeartbeatAck } from './ack.js';
import { callModel, type TurnOutcome } from './provider-call.js';
import { collectNotes } from './run-notes.js';
import { deliverReply, type TurnDeps } from './routing.js';
import { runSummary } from './summary.js';
import { digestForLog } from '../log-digest.js';
import { parseStoredAction } from './stored-action.js';
import { callbackOf } from './callback.js';

export interface AgentRunDeps extends TurnDeps {
  /** The canonical default model, used when the action carries none. */
  defaultModel: string;
  /** Called when a summary with wakeMode `now` was posted. */
  requestHeartbeat: () => void;
}

/**
 * One claimed run: the session's earlier exchanges plus this message go to the provider under the
 * run's deadline; the outcome, the transcript and the summary event are committed together, then
 * the reply is handed to delivery. A shutdown leaves the run to be resumed by the next start.
 */
export async function executeRun(deps: AgentRunDeps, row: RunRow): Promise<void> {
  const action = parseStoredAction(row, 'agent');
  const startedAt = deps.clock.now();
  const notes = collectNotes();
  const outcome: TurnOutcome = action === undefined ? { kind: 'error', error: 'the stored action cannot be read' } : await runTurn(deps, row, action, notes.add);
  if (outcome.kind === 'interrupted') {
    await deps.store.runs.suspend(row.run_id, outcome.error);
    deps.logger.info({ event: 'run.interrupted', runId: row.run_id, attempts: row.attempts }, 'run interrupted by shutdown; resumes on restart');
    return;
  }
  const status: FinishedStatus = outcome.kind;
  const detail = outcome.kind === 'ok' ? outcome.text : outcome.error;
  const skipped = outcome.kind === 'ok' && action !== undefined ? skipReason(deps, action, outcome.text) : undefined;
  await recordEnd(deps, row, action, { status, detail, skipped, notes: notes.list() });
  deps.logger.info(
    // A reason may quote request fields (a model, a recipient): a digest here, the text in the store (GET runs/<id>).
    { event: 'run.finished', runId: row.run_id, hook: row.hook, status, ms: deps.clock.now() - startedAt, ...(status === 'ok' ? {} : { reason: digestForLog(detail) }) },
    'run finished',
  );
  deps.observer?.runFinished(status);
  if (action?.wakeMode !== 'next-heartbeat') deps.requestHeartbeat();
  if (outcome.kind === 'ok' && action !== undefined && skipped === undefined) await deliverRunReply(deps, row.run_id, action, outcome.text);
}

async function runTurn(deps: AgentRunDeps, row: RunRow, action: AgentAction, note: (text: string) => void): Promise<TurnOutcome> {
  const history = await deps.store.transcripts.read(row.session_key, deps.historyBudgetChars);
  return callModel(deps.providers, deps.clock, {
    modelRef: action.model ?? deps.defaultModel,
    messages: [...history, { role: 'user', content: action.message }],
    ...(action.thinking === undefined ? {} : { thinking: action.thinking }),
    timeoutSeconds: action.timeoutSeconds ?? deps.defaults.timeoutSeconds,
    label: 'run',
    shutdown: deps.routing.signal,
    note,
    onCall: (provider) => deps.observer?.modelCalled?.('run', provider),
  });
}

/** Why a successful reply is not sent: known before the end is recorded, so it is recorded with it. */
function skipReason(deps: AgentRunDeps, action: AgentAction, reply: string): string | undefined {
  if (!action.deliver) return 'deliver is false';
  if (action.undeliverable !== undefined) return action.undeliverable;
  if (isHeartbeatAck(reply, deps.defaults.heartbeat.ackMaxChars)) return ACK_SKIP_REASON;
  return undefined;
}

interface RunEnd {
  status: FinishedStatus;
  /** The reply (ok) or the error. */
  detail: string;
  /** Set when the reply is not delivered: the skipped delivery is part of the same commit. */
  skipped: string | undefined;
  /** What the provider noted on the turn (a setting not sent, …). */
  notes: string[];
}

/** The outcome, the transcript, the summary event and a skipped delivery: one commit. */
function recordEnd(deps: AgentRunDeps, row: RunRow, action: AgentAction | undefined, end: RunEnd): Promise<void> {
  const { status, detail, skipped, notes } = end;
  const at = deps.clock.now();
  const summary = runSummary(row.name, status, detail);
  const finish: RunFinish = {
    status,
    at,
    summary,
    ...(status === 'ok' ? { reply: detail } : { error: detail }),
    ...(status === 'ok' && action !== undefined ? { exchange: { sessionKey: row.session_key, user: action.message, assistant: detail } } : {}),
    event: summaryEvent(row, action, summary, at),
    ...(skipped !== undefined && action !== undefined ? { skipped: { channel: action.channel, reason: skipped } } : {}),
    notes,
  };
  const followUp = callbackOf(row, action, { status, at, ...(status === 'ok' ? { reply: detail } : { error: detail }) });
  if (followUp !== undefined) finish.followUp = followUp;
  return deps.store.runs.finish(row.run_id, finish);
}

/** The run's summary as a main-session event, woken as the action asked (`now` when it cannot be read). */
export function summaryEvent(row: RunRow, action: AgentAction | undefined, summary: string, at: number): NonNullable<RunFinish['event']> {
  return {
    at,
    text: summary,
    mode: action?.wakeMode ?? 'now',
    hook: row.hook,
    runId: row.run_id,
    ...(action?.origin.mappingId === undefined ? {} : { mappingId: action.origin.mappingId }),
  };
}

function deliveryRequest(runId: string, action: AgentAction): { channel: string; runId: string; to?: string } {
  return { channel: action.channel, runId, ...(action.to === undefined ? {} : { to: action.to }) };
}

async function deliverRunReply(deps: AgentRunDeps, runId: string, action: AgentAction, reply: string): Promise<void> {
  const delivery = await deliverReply(deps.routing, { ...deliveryRequest(runId, action), text: reply });
  await deps.store.runs.setDelivery(runId, delivery);
}
