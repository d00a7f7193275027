import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { httpStatus, runLink, time } from '../format.js';
import { usePoll } from '../hooks.js';
import type { RequestEntry } from '../types.js';

interface Page {
  requests: RequestEntry[];
  latest: number;
  next?: number;
}

export function RequestsPage({ onUnauthorized }: { onUnauthorized: () => void }) {
  const [hook, setHook] = useState('');
  const [status, setStatus] = useState('');
  const { data, error } = usePoll(() => get<Page>('requests', { hook, status, limit: 100 }), `${hook}|${status}`, onUnauthorized);
  return html`<section>
    <h1>Requests</h1>
    <p class="muted">The recent hook requests this process answered (kept in memory, newest first). Payloads and headers are not kept unless gateway.console.showPayloads is on.</p>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Hook <input name="hook" value=${hook} onInput=${(e: Event) => setHook((e.target as HTMLInputElement).value)} /></label>
      <label>Outcome <select name="status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
        <option value="">all</option><option value="accepted">accepted</option><option value="refused">refused</option>
      </select></label>
    </form>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    <table class="grid" data-testid="requests">
      <thead><tr><th>Time</th><th>Hook</th><th>Mapping</th><th>Status</th><th>Code</th><th>ms</th><th>Idempotency / delivery id</th><th>Actions</th></tr></thead>
      <tbody>${(data?.requests ?? []).map((r) => html`<tr>
        <td class="nowrap">${time(r.at)}</td>
        <td class="mono">${r.method} ${r.hook || '/'}</td>
        <td class="mono">${r.mappingIds.join(', ') || '—'}</td>
        <td>${httpStatus(r.status)}${r.replayed === true ? html` <span class="muted">replayed</span>` : null}${r.skipped === undefined ? null : html` <span class="muted">skipped: ${r.skipped}</span>`}${r.debounced === true ? html` <span class="muted">debounced</span>` : null}</td>
        <td class="mono">${r.code ?? ''}</td>
        <td class="num">${r.durationMs}</td>
        <td class="mono small">${[r.idempotencyKey, r.deliveryId].filter(Boolean).join(' · ') || '—'}</td>
        <td class="small">${r.actions.map((a) => (a.startsWith('agent:') ? html`<div>agent ${runLink(a.slice(6))}</div>` : html`<div>${a.replace(':', ' ')}</div>`))}
          ${r.payload === undefined ? null : html`<details><summary>payload (redacted)</summary><pre>${JSON.stringify({ headers: r.headers, payload: r.payload }, null, 2)}</pre></details>`}</td>
      </tr>`)}</tbody>
    </table>
    ${data !== undefined && data.requests.length === 0 ? html`<p class="muted">No requests yet.</p>` : null}
  </section>`;
}
