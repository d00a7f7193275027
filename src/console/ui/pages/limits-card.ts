import { html } from 'htm/preact';
import { time } from '../format.js';
import type { Overview } from '../types.js';

/** The overview's run-limits card: runs waiting by reason, budgets used and left, provider circuits. */
export function LimitsCard({ limits }: { limits: Overview['limits'] }) {
  if (limits === null) return null;
  const waiting = Object.entries(limits.waiting).filter(([, count]) => count > 0);
  return html`<div class="card" data-testid="limits"><h3>Run limits</h3>
    <p>${waiting.length === 0 ? 'no run waiting' : waiting.map(([reason, count]) => `${count} waiting for ${reason}`).join(' · ')}</p>
    ${limits.budgets.map((b) => html`<p class="muted">budget ${b.scope} per ${b.window}: ${b.used} of ${b.limit} used, ${b.remaining} left</p>`)}
    ${limits.circuits.map((c) => html`<p class=${c.state === 'closed' ? 'muted' : 'error'}>provider ${c.provider}: circuit ${c.state}${c.state === 'open' ? ` until ${time(c.until)}` : c.state === 'probing' ? ` since ${time(c.changedAt)}` : ''} (${c.failures} consecutive failures)</p>`)}
    ${limits.busiestRateKeys.length === 0 ? null : html`<p class="muted">rate-limited keys: ${limits.busiestRateKeys.map((k) => k.bucket.replace(/^rate:/, '')).join(', ')}</p>`}
  </div>`;
}
