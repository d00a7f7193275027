import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { runLink, statusBadge, time } from '../format.js';
import { usePoll } from '../hooks.js';
import type { RunRow } from '../types.js';

/** `pending`: a debounce group that has not fired yet, listed as the run it becomes. */
const STATUSES = ['', 'pending', 'queued', 'running', 'ok', 'error', 'timeout', 'interrupted'];

export function RunsPage({ onUnauthorized }: { onUnauthorized: () => void }) {
  const [filters, setFilters] = useState({ status: '', hook: '', session: '' });
  const [before, setBefore] = useState<string[]>([]);
  const cursor = before[before.length - 1];
  const { data, error } = usePoll(
    () => get<{ runs: RunRow[]; next?: string; morePending?: true }>('runs', { ...filters, before: cursor, limit: 50 }),
    JSON.stringify([filters, cursor]),
    onUnauthorized,
  );
  const set = (name: keyof typeof filters) => (e: Event) => {
    setFilters({ ...filters, [name]: (e.target as HTMLInputElement).value });
    setBefore([]);
  };
  // The list's own retry rows say which run retried which (the list API carries retryOf only).
  const retries = new Map((data?.runs ?? []).flatMap((row) => (row.status === 'pending' || row.retryOf === undefined ? [] : [[row.retryOf, row.runId] as const])));
  const retriedAs = (row: { runId: string; retriedBy?: string | undefined }): string | undefined => row.retriedBy ?? retries.get(row.runId);
  return html`<section>
    <h1>Runs</h1>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Status <select name="status" value=${filters.status} onChange=${set('status')}>${STATUSES.map((s) => html`<option value=${s}>${s || 'all'}</option>`)}</select></label>
      <label>Hook <input name="hook" value=${filters.hook} onInput=${set('hook')} /></label>
      <label>Session <input name="session" value=${filters.session} onInput=${set('session')} /></label>
    </form>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    <table class="grid" data-testid="runs">
      <thead><tr><th>Created</th><th>Run</th><th>Status</th><th>Hook</th><th>Name</th><th>Session</th><th>Summary</th></tr></thead>
      <tbody>${(data?.runs ?? []).map((run) => (run.status === 'pending' ? PendingRow({ run }) : html`<tr>
        <td class="nowrap">${time(run.createdAt)}</td>
        <td>${runLink(run.runId)}${run.retryOf === undefined ? null : html`<div class="muted small">retry of ${runLink(run.retryOf)}</div>`}${retriedAs(run) === undefined ? null : html`<div class="muted small" data-testid="retried-by">retried as ${runLink(retriedAs(run) as string)}</div>`}</td>
        <td>${statusBadge(run.status)}</td>
        <td class="mono">${run.hook}</td>
        <td>${run.name}</td>
        <td class="mono small">${run.kind === undefined ? run.sessionKey : html`<span class="muted">${run.kind}${run.handoff === undefined ? '' : ` → ${run.handoff.target}`}${run.sessionKey === '' ? ' (no session)' : ''}</span>`}</td>
        <td class="clip">${run.summary ?? run.error ?? ''}</td>
      </tr>`))}</tbody>
    </table>
    ${data?.morePending === true ? html`<p class="muted" data-testid="more-pending">More runs are pending than shown here: choose Status “pending” to page through them.</p>` : null}
    <p class="pager">
      <button type="button" disabled=${before.length === 0} onClick=${() => setBefore(before.slice(0, -1))}>Newer</button>
      <button type="button" disabled=${data?.next === undefined} onClick=${() => data?.next !== undefined && setBefore([...before, data.next])}>Older</button>
    </p>
  </section>`;
}

/** A debounce group not fired yet: the run it becomes, its deliveries so far and when it fires. */
function PendingRow({ run }: { run: Extract<RunRow, { status: 'pending' }> }) {
  return html`<tr data-testid="pending-run">
    <td class="nowrap">${time(run.createdAt)}</td>
    <td>${runLink(run.runId)}</td>
    <td>${statusBadge('pending')}</td>
    <td class="mono">${run.hook}</td>
    <td>${run.name}</td>
    <td class="mono small">${run.kind === 'notify' ? html`<span class="muted">notify (no session)</span>` : run.sessionKey}</td>
    <td class="clip" data-testid="pending-summary">${run.deliveries} deliver${run.deliveries === 1 ? 'y' : 'ies'} so far; ${run.firing === true ? 'firing now' : `fires ${time(run.firesAt)}`}</td>
  </tr>`;
}
