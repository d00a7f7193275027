import { html } from 'htm/preact';
import { get } from '../api.js';
import { deliveryText, runLink, statusBadge, time } from '../format.js';
import { usePoll } from '../hooks.js';
import type { EventView, Heartbeat } from '../types.js';

export function MainSessionPage({ onUnauthorized }: { onUnauthorized: () => void }) {
  const { data, error } = usePoll(() => get<{ pending: EventView[]; heartbeats: Heartbeat[] }>('main-session'), 'main', onUnauthorized);
  if (data === undefined) return html`<p class="muted">${error ?? 'loading…'}</p>`;
  return html`<section>
    <h1>Main session</h1>
    <h2>Pending events (${data.pending.length})</h2>
    <p class="muted">Run summaries are shown; the text of wake events is payload content and is shown only with gateway.console.showPayloads.</p>
    <table class="grid" data-testid="pending">
      <thead><tr><th>#</th><th>Time</th><th>Hook</th><th>Mode</th><th>Text</th></tr></thead>
      <tbody>${data.pending.map((event) => html`<tr>
        <td class="num">${event.id}</td><td class="nowrap">${time(event.createdAt)}</td>
        <td class="mono">${event.hook}${event.mappingId === undefined ? '' : ` (${event.mappingId})`}</td><td>${event.mode}</td>
        <td class="clip">${event.text ?? html`<span class="muted">${event.chars} characters</span>`}${event.runId === undefined ? null : html` — ${runLink(event.runId)}`}</td>
      </tr>`)}</tbody>
    </table>
    <h2>Recent heartbeats</h2>
    <table class="grid" data-testid="heartbeats">
      <thead><tr><th>#</th><th>Started</th><th>Status</th><th>Events</th><th>Reply</th><th>Delivery</th></tr></thead>
      <tbody>${data.heartbeats.map((hb) => html`<tr>
        <td class="num">${hb.id}</td><td class="nowrap">${time(hb.startedAt)}</td><td>${statusBadge(hb.status)}</td><td class="num">${hb.events}</td>
        <td class="pre clip">${hb.reply ?? hb.error ?? ''}</td><td class="small">${deliveryText(hb.delivery)}</td>
      </tr>`)}</tbody>
    </table>
  </section>`;
}
