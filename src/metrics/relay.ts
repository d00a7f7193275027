import { Counter, Gauge, type Registry } from 'prom-client';
import type { RelayTargetView } from '../store/port.js';
import { oneReadPerScrape } from './scrape-read.js';

/** What the edge of relay targets reports (src/relay/, docs/relay.md). */
export interface RelayObserver {
  /** Events handed out by one pull (first deliveries and redeliveries alike). */
  pulled(target: string, events: number): void;
  /** Acknowledgements answered with `result` (acked, already-acked, not-leased, ended, unknown). */
  acknowledged(target: string, result: string, count: number): void;
  /** Events dropped past the target's retentionHours. */
  dropped(target: string, events: number): void;
}

const bounded = (value: string): string => (value.length <= 100 ? value : value.slice(0, 100));

/**
 * Relay counters, and two gauges read from the store at scrape time (one read serves both):
 * each relay target's backlog and the age of its oldest event, the numbers to alert on.
 */
export function createRelayMetrics(registers: Registry[], overview: (() => Promise<RelayTargetView[]>) | undefined, now: () => number = Date.now): RelayObserver {
  const pulled = new Counter({ name: 'hookgate_relay_events_pulled_total', help: 'Relay events handed to consumers (redeliveries included), by target.', labelNames: ['target'], registers });
  const acknowledged = new Counter({
    name: 'hookgate_relay_acks_total',
    help: 'Acknowledgements of relay events, by target and result (acked, already-acked, not-leased, ended, unknown).',
    labelNames: ['target', 'result'],
    registers,
  });
  const dropped = new Counter({ name: 'hookgate_relay_events_dropped_total', help: 'Relay events dropped unacknowledged past the target’s retentionHours, by target.', labelNames: ['target'], registers });
  if (overview !== undefined) registerBacklogGauges(oneReadPerScrape(overview), registers, now);
  return {
    pulled: (target, events) => pulled.inc({ target: bounded(target) }, events),
    acknowledged: (target, result, count) => acknowledged.inc({ target: bounded(target), result }, count),
    dropped: (target, events) => dropped.inc({ target: bounded(target) }, events),
  };
}

function registerBacklogGauges(read: () => Promise<RelayTargetView[] | undefined>, registers: Registry[], now: () => number): void {
  new Gauge({
    name: 'hookgate_relay_backlog',
    help: 'Relay events not acknowledged yet, by target.',
    labelNames: ['target'],
    registers,
    async collect() {
      for (const view of (await read()) ?? []) this.set({ target: bounded(view.target) }, view.backlog);
    },
  });
  new Gauge({
    name: 'hookgate_relay_oldest_event_age_seconds',
    help: 'Age of the oldest relay event not acknowledged yet, by target (0 when none waits).',
    labelNames: ['target'],
    registers,
    async collect() {
      for (const view of (await read()) ?? []) this.set({ target: bounded(view.target) }, view.oldestAt === undefined ? 0 : Math.max(0, now() - view.oldestAt) / 1000);
    },
  });
}
