import type { CircuitRow } from './limit-types.js';
import type { HandoffRecord } from './handoff-types.js';
import type { EventView, GmailStateRow, HeartbeatView, RecordedDelivery, RunRow, RunView, TranscriptMessage } from './port-types.js';

/**
 * Rows as every adapter reads them, turned into the port's views: one definition, so the run
 * endpoint, the console and `hookgate status` show the same thing whichever database answers.
 */

export interface EventViewRow {
  id: number;
  created_at: number;
  text: string;
  mode: string;
  hook: string;
  mapping_id: string | null;
  run_id: string | null;
}

export interface HeartbeatViewRow {
  id: number;
  started_at: number;
  finished_at: number | null;
  status: string;
  event_count: number;
  reply: string | null;
  error: string | null;
  delivery: string | null;
}

export function toRunView(row: RunRow): RunView {
  const view: RunView = {
    runId: row.run_id,
    status: row.status,
    hook: row.hook,
    name: row.name,
    sessionKey: row.session_key,
    createdAt: iso(row.created_at),
    attempts: row.attempts,
  };
  if (row.started_at !== null) view.startedAt = iso(row.started_at);
  if (row.finished_at !== null) view.finishedAt = iso(row.finished_at);
  if (row.summary !== null) view.summary = row.summary;
  if (row.error !== null) view.error = row.error;
  if (row.delivery !== null) view.delivery = JSON.parse(row.delivery) as RecordedDelivery;
  if (row.retry_of !== null) view.retryOf = row.retry_of;
  if (row.kind !== undefined && row.kind !== 'agent') view.kind = row.kind;
  const handoff = parseHandoff(row.handoff);
  if (handoff !== undefined) view.handoff = handoff;
  const notes = parseNotes(row.notes);
  if (notes.length > 0) view.notes = notes;
  if (row.status === 'queued') {
    // A relay run waits for a consumer to pull and acknowledge it, never for an executor.
    view.waitingFor = row.waiting_for ?? (row.kind === 'relay' ? 'consumer' : 'slot');
    if (row.not_before !== undefined && row.not_before !== null && row.waiting_for !== 'concurrency') view.notBefore = iso(row.not_before);
  }
  return view;
}

function parseHandoff(column: string | null | undefined): HandoffRecord | undefined {
  if (column === undefined || column === null) return undefined;
  try {
    const parsed = JSON.parse(column) as HandoffRecord | null;
    return typeof parsed?.target === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** RunFinish.notes as the `notes` column holds them: null when there are none. */
export function notesColumn(notes: readonly string[] | undefined): string | null {
  return notes === undefined || notes.length === 0 ? null : JSON.stringify(notes);
}

function parseNotes(column: string | null | undefined): string[] {
  if (column === undefined || column === null) return [];
  try {
    const parsed: unknown = JSON.parse(column);
    return Array.isArray(parsed) ? parsed.filter((note): note is string => typeof note === 'string') : [];
  } catch {
    return [];
  }
}

/** A wake's text is payload content: it is in the view only when includeWakeText (a run's summary always is). */
export function toEventView(row: EventViewRow, includeWakeText: boolean): EventView {
  return {
    id: row.id,
    createdAt: iso(row.created_at),
    mode: row.mode,
    hook: row.hook,
    chars: row.text.length,
    ...(row.mapping_id === null ? {} : { mappingId: row.mapping_id }),
    ...(row.run_id === null ? {} : { runId: row.run_id }),
    ...(row.run_id !== null || includeWakeText ? { text: row.text } : {}),
  };
}

export function toHeartbeatView(row: HeartbeatViewRow): HeartbeatView {
  return {
    id: row.id,
    status: row.status,
    startedAt: iso(row.started_at),
    events: row.event_count,
    ...(row.finished_at === null ? {} : { finishedAt: iso(row.finished_at) }),
    ...(row.reply === null ? {} : { reply: row.reply }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.delivery === null ? {} : { delivery: JSON.parse(row.delivery) as RecordedDelivery }),
  };
}

export interface GmailStateViewRow {
  account: string;
  history_id: string | null;
  watch_expiration: number | null;
  mode: string | null;
  last_error: string | null;
  updated_at: number;
}

export function toGmailState(row: GmailStateViewRow): GmailStateRow {
  return {
    account: row.account,
    historyId: row.history_id ?? undefined,
    watchExpiration: row.watch_expiration ?? undefined,
    mode: row.mode ?? undefined,
    lastError: row.last_error ?? undefined,
    updatedAt: row.updated_at,
  };
}

/**
 * The transcript a session's newest-first messages allow within maxChars, oldest first: older
 * exchanges are dropped whole, and it never starts with an assistant reply whose question was dropped.
 */
export function fitTranscript(newestFirst: Iterable<TranscriptMessage>, maxChars: number): TranscriptMessage[] {
  const kept: TranscriptMessage[] = [];
  let used = 0;
  for (const row of newestFirst) {
    if (used + row.content.length > maxChars) break;
    used += row.content.length;
    kept.push({ role: row.role, content: row.content });
  }
  kept.reverse();
  while (kept[0]?.role === 'assistant') kept.shift();
  return kept;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A `provider_circuits` row as both adapters read it. */
export interface CircuitSqlRow {
  provider: string;
  state: CircuitRow['state'];
  failures: number;
  until: number;
  open_ms: number;
  changed_at: number;
  probe_run: string | null;
}

export function toCircuit(row: CircuitSqlRow): CircuitRow {
  const circuit: CircuitRow = { provider: row.provider, state: row.state, failures: row.failures, until: row.until, openMs: row.open_ms, changedAt: row.changed_at };
  if (row.state === 'probing' && row.probe_run !== null) circuit.probeRun = row.probe_run;
  return circuit;
}
