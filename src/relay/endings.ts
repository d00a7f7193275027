import type { ActionOrigin } from '../actions/types.js';
import type { HandoffRecord, RelayAck, RunFinish, RunRow } from '../store/port.js';
import { callbackOf } from '../runtime/callback.js';
import { singleLine, truncate } from '../runtime/summary.js';

/**
 * How a relay event's run ends (docs/relay.md): acknowledged by a consumer (ok), refused for good
 * by the consumer's gateway (error, with its answer), or dropped past the target's retention
 * (error). Its callback, when its action names one, is queued in the same transaction.
 */

/** What of a consumer's reason for a refusal is kept with the run (it reaches the console and callbacks). */
const REASON_MAX_CHARS = 300;

/** The end of an acknowledged event: taken (ok) or refused by the consumer's gateway (error). */
export function acknowledgedEnding(target: string, consumer: string, at: number): (row: RunRow, ack: RelayAck) => RunFinish {
  return (row, ack) => {
    const handoff: HandoffRecord = { target, consumer };
    if (ack.taken) return ending(row, { status: 'ok', at, summary: `${label(row)} → ${target}: acknowledged by ${consumer}`, handoff });
    const error = `consumer ${consumer}: ${truncate(singleLine(ack.reason), REASON_MAX_CHARS)}`;
    return ending(row, { status: 'error', at, summary: `${label(row)} (error): ${error}`, error, handoff: { ...handoff, reason: error } });
  };
}

/** The end of an event nobody acknowledged within the target's retention. */
export function droppedEnding(target: string, retentionMs: number, at: number): (row: RunRow) => RunFinish {
  const error = `dropped: not acknowledged within ${formatHours(retentionMs)} (targets.${target}.retentionHours)`;
  return (row) => ending(row, { status: 'error', at, summary: `${label(row)} (error): ${error}`, error, handoff: { target, reason: error } });
}

function ending(row: RunRow, end: RunFinish & { handoff: HandoffRecord }): RunFinish {
  const followUp = callbackOf(row, storedAction(row), { status: end.status, at: end.at, error: end.error, handoff: end.handoff });
  return followUp === undefined ? end : { ...end, followUp };
}

function label(row: RunRow): string {
  return `Relay ${truncate(singleLine(row.name), 120)}`;
}

function formatHours(ms: number): string {
  const hours = ms / 3_600_000;
  return `${Number.isInteger(hours) ? hours : hours.toFixed(2)} h`;
}

/** The stored action's callback and origin; undefined when it cannot be read (never expected). */
function storedAction(row: RunRow): { callback?: string; origin: ActionOrigin } | undefined {
  try {
    const action = JSON.parse(row.action) as { callback?: unknown; origin?: ActionOrigin } | null;
    if (action?.origin === undefined) return undefined;
    return typeof action.callback === 'string' ? { callback: action.callback, origin: action.origin } : { origin: action.origin };
  } catch {
    return undefined;
  }
}
