import { Counter, Gauge, type Registry } from 'prom-client';

/** What the hook handlers report of admission (src/http/admission-commit.ts). */
export interface AdmissionObserver {
  skipped(mappingId: string, reason: string): void;
  /** A delivery joined an open group instead of opening one. */
  merged(mappingId: string): void;
}

/** Skipped deliveries, merged deliveries and open debounce groups (read from the store at scrape). */
export function createAdmissionMetrics(registers: Registry[], openGroups: (() => Promise<number>) | undefined): AdmissionObserver {
  const skipped = new Counter({
    name: 'hookgate_hook_skipped_total',
    help: 'Deliveries answered 200 skipped, by mapping and reason (event, filter: every matching mapping passed them over; rate-limit: its rate limit skipped them; self: a message the service posted itself).',
    labelNames: ['mapping', 'reason'],
    registers,
  });
  const merged = new Counter({ name: 'hookgate_debounce_merged_total', help: 'Deliveries that joined an open debounce group, by mapping.', labelNames: ['mapping'], registers });
  if (openGroups !== undefined) {
    new Gauge({
      name: 'hookgate_debounce_groups_open',
      help: 'Debounce groups waiting to fire (or firing).',
      registers,
      async collect() {
        // A scrape must not fail because the store is closing or busy: the gauge keeps its last value.
        const count = await openGroups().catch(() => undefined);
        if (count !== undefined) this.set(count);
      },
    });
  }
  return {
    skipped: (mapping, reason) => skipped.inc({ mapping: mapping.slice(0, 100), reason }),
    merged: (mapping) => merged.inc({ mapping: mapping.slice(0, 100) }),
  };
}
