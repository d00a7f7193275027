import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { deliveryText, runLink, statusBadge, time } from '../format.js';
import { usePoll } from '../hooks.js';
import type { PendingRun, Run } from '../types.js';
import { handoffFacts } from '../../../store/handoff-types.js';

const RETRYABLE = new Set(['error', 'timeout', 'interrupted']);

export function RunPage({ runId, onUnauthorized }: { runId: string; onUnauthorized: () => void }) {
  const { data, error, refresh } = usePoll(() => get<{ run: Run | PendingRun }>(`runs/${encodeURIComponent(runId)}`), runId, onUnauthorized);
  const [retryError, setRetryError] = useState<string | undefined>(undefined);
  const found = data?.run;
  if (found === undefined) return html`<p class="muted">${error ?? 'loading…'}</p>`;
  if (found.status === 'pending') return PendingRunPage({ pending: found });
  const run = found;
  const retry = async () => {
    try {
      const answer = await post<{ runId: string }>(`runs/${encodeURIComponent(runId)}/retry`);
      setRetryError(undefined);
      refresh();
      location.hash = `#/runs/${encodeURIComponent(answer.runId)}`;
    } catch (caught) {
      setRetryError((caught as Error).message);
    }
  };
  const start = async () => {
    try {
      await post(`runs/${encodeURIComponent(runId)}/start`);
      setRetryError(undefined);
      refresh();
    } catch (caught) {
      setRetryError((caught as Error).message);
    }
  };
  return html`<section>
    <h1>Run <span class="mono">${run.runId}</span></h1>
    <dl class="kv" data-testid="run">
      <dt>Status</dt><dd>${statusBadge(run.status)}${run.waitingFor === undefined ? null : html` <span data-testid="waiting">waiting: ${run.waitingFor}${run.notBefore === undefined ? '' : `, until ${time(run.notBefore)}`}</span>`}</dd>
      <dt>Hook</dt><dd class="mono">${run.hook}</dd>
      <dt>Name</dt><dd>${run.name}</dd>
      <dt>Kind</dt><dd>${KIND_LABELS[run.kind ?? 'agent']}</dd>
      ${run.sessionKey === '' ? null : html`<dt>Session</dt><dd class="mono">${run.sessionKey}</dd>`}
      ${run.handoff === undefined ? null : html`<dt>Target</dt><dd data-testid="handoff">${[run.handoff.target, ...handoffFacts(run.handoff, time)].join(', ')}</dd>`}
      <dt>Created</dt><dd>${time(run.createdAt)}</dd>
      <dt>Started</dt><dd>${time(run.startedAt)}</dd>
      <dt>Finished</dt><dd>${time(run.finishedAt)}</dd>
      <dt>Attempts</dt><dd>${run.attempts}</dd>
      <dt>Summary</dt><dd data-testid="summary" class="pre">${run.summary ?? '—'}</dd>
      <dt>Error</dt><dd class="pre">${run.error ?? '—'}</dd>
      ${run.notes === undefined ? null : html`<dt>Notes</dt><dd data-testid="notes"><ul class="notes">${run.notes.map((note) => html`<li>${note}</li>`)}</ul></dd>`}
      <dt>Delivery</dt><dd>${deliveryText(run.delivery)}</dd>
      ${run.retryOf === undefined ? null : html`<dt>Retry of</dt><dd>${runLink(run.retryOf)}</dd>`}
      ${run.retriedBy === undefined ? null : html`<dt>Retried as</dt><dd>${runLink(run.retriedBy)}</dd>`}
    </dl>
    ${RETRYABLE.has(run.status) && run.retriedBy === undefined
      ? html`<p><button type="button" class="primary" data-testid="retry" onClick=${retry}>Retry</button> <span class="muted">queues the same action again as a new run linked to this one</span></p>`
      : null}
    ${run.status === 'queued' && run.kind !== 'relay'
      ? html`<p><button type="button" data-testid="force-start" onClick=${start}>Start now</button> <span class="muted">lets this run start past its budget and throttle (logged); it still waits for a free slot, its concurrency key and its provider</span></p>`
      : null}
    ${retryError === undefined ? null : html`<p class="error">${retryError}</p>`}
  </section>`;
}

const KIND_LABELS: Readonly<Record<NonNullable<Run['kind']> | 'agent', string>> = {
  agent: 'agent run',
  notify: 'notify: text sent to a channel, no model',
  forward: 'forward: handed to a target, not run here',
  callback: 'callback: the end of a run, posted to a target',
  relay: 'relay: held here until a consumer (hookgate relay) pulls and acknowledges it',
};

/** A debounce group that has not fired: the run it becomes, when, and how many deliveries it merges so far. */
function PendingRunPage({ pending }: { pending: PendingRun }) {
  return html`<section>
    <h1>Run <span class="mono">${pending.runId}</span></h1>
    <dl class="kv" data-testid="run">
      <dt>Status</dt><dd>${statusBadge('pending')} <span data-testid="pending">debounced: becomes a queued run at ${time(pending.firesAt)}</span></dd>
      <dt>Mapping</dt><dd class="mono">${pending.mappingId}</dd>
      <dt>Deliveries merged</dt><dd data-testid="deliveries">${pending.deliveries}</dd>
      <dt>First delivery</dt><dd>${time(pending.createdAt)}</dd>
    </dl>
  </section>`;
}
