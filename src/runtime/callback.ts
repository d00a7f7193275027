import { newTimeOrderedId } from '../actions/ids.js';
import { documentOrigin } from '../actions/handoff.js';
import type { ActionOrigin } from '../actions/types.js';
import type { FinishedStatus, FollowUpRun, HandoffRecord, RunRow } from '../store/port.js';

/** The callback document's version (docs/forward.md). */
export const RUN_FINISHED_TYPE = 'hookgate.run.finished.v1';

/** A callback run's stored action: the target and the document it is sent. */
export interface CallbackAction {
  kind: 'callback';
  runId: string;
  target: string;
  document: Record<string, unknown>;
  origin: ActionOrigin;
}

/** How a run ended, as its callback reports it. */
export interface RunEnding {
  status: FinishedStatus;
  at: number;
  reply?: string | undefined;
  error?: string | undefined;
  /** A forwarded run: what its target answered. */
  handoff?: HandoffRecord | undefined;
}

/**
 * The callback a run's end queues when its action names one (`callback`), written in the same
 * transaction as the end: a crash cannot end a run without it. Undefined for a run without one,
 * and for a callback run itself.
 */
export function callbackOf(row: RunRow, action: { callback?: string | undefined; origin: ActionOrigin } | undefined, end: RunEnding): FollowUpRun | undefined {
  if (action?.callback === undefined || row.kind === 'callback') return undefined;
  const runId = newTimeOrderedId();
  const document: Record<string, unknown> = {
    type: RUN_FINISHED_TYPE,
    runId: row.run_id,
    status: end.status,
    ...(end.reply === undefined ? {} : { reply: end.reply }),
    ...(end.error === undefined ? {} : { error: end.error }),
    startedAt: new Date(row.started_at ?? row.created_at).toISOString(),
    endedAt: new Date(end.at).toISOString(),
    origin: documentOrigin(action.origin),
    ...(end.handoff === undefined ? {} : { target: targetFacts(end.handoff) }),
  };
  const stored: CallbackAction = { kind: 'callback', runId, target: action.callback, document, origin: action.origin };
  return { runId, kind: 'callback', hook: row.hook, name: row.name, action: JSON.stringify(stored) };
}

/** A forwarded run's target as the callback tells it: its name, HTTP status, own run id and outcome. */
function targetFacts(handoff: HandoffRecord): Record<string, unknown> {
  const { target, status, runId, outcome } = handoff;
  return { name: target, ...(status === undefined ? {} : { status }), ...(runId === undefined ? {} : { runId }), ...(outcome === undefined ? {} : { outcome }) };
}

/** A callback run's stored action; undefined when the row cannot be read as one (never expected). */
export function parseCallbackAction(row: Pick<RunRow, 'action'>): CallbackAction | undefined {
  try {
    const action = JSON.parse(row.action) as Partial<CallbackAction> | null;
    const valid = action?.kind === 'callback' && typeof action.target === 'string' && action.document !== null && typeof action.document === 'object';
    return valid ? (action as CallbackAction) : undefined;
  } catch {
    return undefined;
  }
}
