import { html } from 'htm/preact';
import { get } from '../api.js';
import { usePoll } from '../hooks.js';
import type { MappingView } from '../types.js';

export function MappingsPage({ onUnauthorized }: { onUnauthorized: () => void }) {
  const { data, error } = usePoll(() => get<{ mappings: MappingView[] }>('mappings'), 'mappings', onUnauthorized);
  if (data === undefined) return html`<p class="muted">${error ?? 'loading…'}</p>`;
  return html`<section>
    <h1>Mappings</h1>
    <p class="muted">In matching order: hooks.mappings, then presets. Counts cover the requests this process keeps (see Requests).</p>
    ${data.mappings.length === 0 ? html`<p class="muted">No mappings configured.</p>` : null}
    <table class="grid" data-testid="mappings">
      <thead><tr><th>Id</th><th>Source</th><th>Match</th><th>Action</th><th>Templates</th><th>Transform</th><th>Signature</th><th>Hits</th><th>Errors</th></tr></thead>
      <tbody>${data.mappings.map((m) => html`<tr>
        <td class="mono">${m.id}</td>
        <td>${m.source}<div class="muted small">${m.label}</div></td>
        <td class="mono small">${m.match.path === undefined ? '' : `path=${m.match.path}`} ${m.match.source === undefined ? '' : `source=${m.match.source}`}${m.match.path === undefined && m.match.source === undefined ? 'every hook' : ''}</td>
        <td>${m.action}</td>
        <td class="small">${Object.entries(m.templates).map(([field, template]) => html`<div><b>${field}</b> <code>${template}</code></div>`)}</td>
        <td class="mono small">${m.transform === undefined ? '—' : `${m.transform.module}${m.transform.export === undefined ? '' : `#${m.transform.export}`}`}</td>
        <td class="mono small">${m.signature ?? '—'}</td>
        <td class="num">${m.hits}</td><td class="num">${m.errors}</td>
      </tr>`)}</tbody>
    </table>
  </section>`;
}
