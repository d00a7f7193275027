import { html } from 'htm/preact';
import { get } from '../api.js';
import { RequestsChart } from '../chart.js';
import { deliveryText, statusBadge, time } from '../format.js';
import { usePoll } from '../hooks.js';
import type { Overview } from '../types.js';
import { LimitsCard } from './limits-card.js';
import { RelayCard } from './relay-card.js';

export function OverviewPage({ onUnauthorized }: { onUnauthorized: () => void }) {
  const { data, error } = usePoll(() => get<Overview>('overview'), 'overview', onUnauthorized);
  if (data === undefined) return html`<p class="muted">${error ?? 'loading…'}</p>`;
  const { queues, lastHeartbeat: hb } = data;
  return html`<section>
    <h1>Overview</h1>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    <h2>Requests per minute</h2>
    <${RequestsChart} buckets=${data.perMinute} />
    <div class="cards">
      <div class="card"><h3>Pending events</h3><p class="big" data-testid="pending-events">${queues.pendingEvents}</p></div>
      <div class="card"><h3>Runs</h3><p class="big">${queues.runs['queued'] ?? 0} queued · ${queues.runs['running'] ?? 0} running</p>
        <p class="muted">${['ok', 'error', 'timeout', 'interrupted'].map((s) => `${queues.runs[s] ?? 0} ${s}`).join(' · ')}</p></div>
      <div class="card"><h3>Last heartbeat</h3>${hb === null
        ? html`<p class="muted">none yet</p>`
        : html`<p>${statusBadge(hb.status)} #${hb.id} at ${time(hb.finishedAt ?? hb.startedAt)}</p>
            <p class="muted">${hb.events} event${hb.events === 1 ? '' : 's'} · delivery: ${deliveryText(hb.delivery)}</p>
            ${hb.error === undefined ? null : html`<p class="error">${hb.error}</p>`}`}</div>
      <div class="card"><h3>Sandbox</h3><p>${data.sandbox.inUse ? `${data.sandbox.workers} worker processes` : 'not in use (no mapping has a transform)'}</p></div>
      <div class="card"><h3>Store</h3><p>${data.store.writable ? statusBadge('ok') : statusBadge('error')} ${data.store.writable ? 'writable' : 'not writable: new requests get 503'}</p></div>
      <div class="card"><h3>Config reload</h3>${reloadView(data.reload)}</div>
      <div class="card" data-testid="debounce-groups"><h3>Debounce groups</h3>${debounceView(data.debounce)}</div>
      <${LimitsCard} limits=${data.limits} />
      <${RelayCard} relay=${data.relay} now=${data.now} />
    </div>
  </section>`;
}

/** Open groups, soonest first: an agent group's id is the run id it will have once it fires. */
function debounceView(debounce: Overview['debounce']) {
  if (debounce === null || debounce.open === 0) return html`<p class="muted">none open</p>`;
  return html`<p class="big">${debounce.open} open</p><ul class="small">${debounce.groups.map(
    (group) => html`<li><span class="mono">${group.kind === 'agent' ? `run ${group.groupId}` : 'wake'}</span> <span class="mono">${group.mappingId}</span> ${group.deliveries} deliveries · fires ${time(group.firesAt)}</li>`,
  )}</ul>`;
}

function reloadView(reload: unknown) {
  if (reload === null || typeof reload !== 'object') return html`<p class="muted">not reported by this version</p>`;
  return html`<dl class="kv">${Object.entries(reload as Record<string, unknown>).map(
    ([key, value]) => html`<dt>${key}</dt><dd>${value === null || value === undefined ? '—' : String(value)}</dd>`,
  )}</dl>`;
}
