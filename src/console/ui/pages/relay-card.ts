import { html } from 'htm/preact';
import { time } from '../format.js';
import type { Overview } from '../types.js';

/** `2 h 5 min`, `40 s`. */
function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The overview's relay card (docs/relay.md): per relay target, its backlog, oldest event, consumers last seen, and what retention dropped. */
export function RelayCard({ relay, now }: { relay: Overview['relay']; now: number }) {
  if (relay.length === 0) return null;
  return html`<div class="card" data-testid="relay"><h3>Relay</h3>${relay.map(
    (target) => html`<div data-testid=${`relay-${target.target}`}>
      <p><span class="mono">${target.target}</span>: <span class="big">${target.backlog}</span> waiting · ${target.leased} leased${target.oldestAt === undefined ? '' : ` · oldest ${age(now - target.oldestAt)} old`}</p>
      <p class="muted small">consumers: ${target.consumers.length === 0 ? 'none seen yet' : target.consumers.map((consumer) => `${consumer.consumer} (${age(now - consumer.lastSeen)} ago)`).join(', ')}</p>
      ${target.dropped === undefined ? null : html`<p class="error" role="alert">${target.dropped.count} event(s) dropped unacknowledged past retentionHours; the last ${target.dropped.lastCount} at ${time(target.dropped.lastAt)}</p>`}
    </div>`,
  )}</div>`;
}
