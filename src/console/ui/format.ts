import { html } from 'htm/preact';
import type { Delivery } from './types.js';

export function time(value: string | number | undefined): string {
  if (value === undefined) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function statusBadge(status: string) {
  return html`<span class=${`badge badge-${status.replace(/[^a-z0-9-]/gi, '')}`}>${status}</span>`;
}

export function httpStatus(status: number) {
  return html`<span class=${`badge ${status >= 400 ? 'badge-error' : 'badge-ok'}`}>${status}</span>`;
}

export function deliveryText(delivery: Delivery | undefined): string {
  if (delivery === undefined) return '—';
  if (delivery.status === 'skipped') return `skipped (${delivery.reason})`;
  const where = ` via ${delivery.channel}${delivery.to === undefined ? '' : ` to ${delivery.to}`}`;
  const why = delivery.status === 'failed' ? ` (${delivery.reason})` : '';
  return `${delivery.status}${where}${why}, ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
}

export function runLink(runId: string) {
  return html`<a href=${`#/runs/${encodeURIComponent(runId)}`} class="mono">${runId}</a>`;
}
