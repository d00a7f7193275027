import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LimitOverview, QueueDepths, RelayTargetView } from '../store/port.js';
import { createLimitMetrics, type LimitObserver } from './limits.js';
import { createGmailMetrics, type GmailObserver } from './gmail.js';
import { createAdmissionMetrics, type AdmissionObserver } from './admission.js';
import { createRelayMetrics, type RelayObserver } from './relay.js';
import { oneReadPerScrape } from './scrape-read.js';

/** Routes requests are counted by: a fixed set, never the raw path, so label cardinality stays bounded. */
export type RouteLabel = 'wake' | 'agent' | 'mapped' | 'runs' | 'relay' | 'health' | 'metrics' | 'other';

/** How one transform call ended, as the sandbox reports it. */
type TransformOutcome = 'ok' | 'skipped' | 'failed' | 'timeout' | 'unavailable';

/**
 * The service's metrics. One instance (and one prom-client Registry) per service, never the
 * global default registry, so several services can run in one process (tests do).
 */
export interface Metrics {
  /** Content-Type of render()'s output. */
  readonly contentType: string;
  /** The Prometheus text exposition of every metric; queue depths are read from the store now. */
  render(): Promise<string>;
  /** `code`: the error code of a refusal, when known (a 429 counts as an auth failure only when it is TOO_MANY_AUTH_FAILURES). */
  observeRequest(route: RouteLabel, status: number, seconds: number, code?: string): void;
  /** For the mapping engine / sandbox: one transform call of `module` took `ms` and ended with `outcome`. */
  observeTransform(module: string, ms: number, outcome: TransformOutcome): void;
  /** For the runtime: an agent run ended with this status (ok, error, timeout, interrupted). */
  runFinished(status: string): void;
  /** For the runtime: a delivery to this channel failed. */
  deliveryFailed(channel: string): void;
  /** For the runtime: a model call, an agent run's or a heartbeat's, to this provider. */
  modelCalled(origin: 'run' | 'heartbeat', provider: string): void;
  /** For the runtime: one handoff to a target (docs/forward.md) ended: accepted, retry, refused or gave-up. */
  handedOff(target: string, outcome: string): void;
  /** A store commit was refused (disk full, read-only, I/O error). */
  storeCommitFailed(): void;
  /** A signed request was refused: scheme (registry name) and reason (missing, malformed, mismatch, expired). */
  signatureFailed(scheme: string, reason: string): void;
  /** The config reload state: `ok` false while the last reload failed; when the mappings in force loaded (ms). */
  configReloadState(ok: boolean, lastSuccessMs: number): void;
  /** The Gmail watcher's counters (src/sources/gmail/). */
  readonly gmail: GmailObserver;
  /** Skipped and debounced deliveries (src/http/admission-commit.ts). */
  readonly admission: AdmissionObserver;
  /** Flow control: deliveries skipped or refused by limits (src/admission/). */
  readonly limits: LimitObserver;
  /** Relay targets: events pulled, acknowledged and dropped (src/relay/). */
  readonly relay: RelayObserver;
}

export interface MetricsOptions {
  /** The store's queue depths (Store.depths), read at scrape time; omitted → no queue gauges. */
  depths?: () => Promise<QueueDepths>;
  /** Node process metrics (memory, CPU, event-loop lag, GC). Default true. */
  processMetrics?: boolean;
  /**
   * Set when several instances share one store: every series gets the label `hookgate_instance`
   * with it, so a dashboard can tell (or sum) the instances behind one job.
   */
  instance?: string;
  /** Open debounce groups (DebounceStore.countOpen), read at scrape time; omitted → no gauge. */
  openDebounceGroups?: () => Promise<number>;
  /** The limit store's overview (waiting runs, budgets, circuits), read at scrape time; omitted → no limit gauges. */
  limits?: () => Promise<LimitOverview>;
  /** Bytes of request bodies charged to hooks.bodyBudgetBytes now (BodyBudget.heldBytes); omitted → no gauge. */
  bodyBytesHeld?: () => number;
  /** The relay targets' backlogs (RelayStore.overview), read at scrape time; omitted → no relay gauges. */
  relayBacklogs?: () => Promise<RelayTargetView[]>;
  /** The time the relay gauges measure ages by (the store's). */
  now?: () => number;
}

const RUN_STATUSES = new Set(['ok', 'error', 'timeout', 'interrupted']);
const TRANSFORM_FAILURES = new Set<TransformOutcome>(['failed', 'timeout', 'unavailable']);

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.instance !== undefined) registry.setDefaultLabels({ hookgate_instance: options.instance });
  const registers = [registry];
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'hookgate_' });

  const requests = new Counter({ name: 'hookgate_http_requests_total', help: 'HTTP requests answered, by route and status.', labelNames: ['route', 'status'], registers });
  const durations = new Histogram({
    name: 'hookgate_http_request_duration_seconds',
    help: 'Time from request to response, by route.',
    labelNames: ['route'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers,
  });
  const authFailures = new Counter({ name: 'hookgate_auth_failures_total', help: 'Refused authentications: unauthorized (401) or throttled (429).', labelNames: ['outcome'], registers });
  const tooLarge = new Counter({ name: 'hookgate_body_limit_rejections_total', help: 'Requests refused with 413 (body over the limit).', registers });
  const transformSeconds = new Histogram({
    name: 'hookgate_transform_duration_seconds',
    help: 'Duration of transform calls, by module and outcome.',
    labelNames: ['module', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const transformFailures = new Counter({ name: 'hookgate_transform_failures_total', help: 'Transform calls that failed, timed out or found no sandbox, by module.', labelNames: ['module', 'outcome'], registers });
  const runsFinished = new Counter({ name: 'hookgate_runs_finished_total', help: 'Agent runs that ended, by status.', labelNames: ['status'], registers });
  const modelCalls = new Counter({
    name: 'hookgate_model_calls_total',
    help: 'Model calls made by this instance, by origin (run: an agent run; heartbeat: a main-session turn) and provider.',
    labelNames: ['origin', 'provider'],
    registers,
  });
  const deliveryFailures = new Counter({ name: 'hookgate_delivery_failures_total', help: 'Failed deliveries, by channel.', labelNames: ['channel'], registers });
  const handoffs = new Counter({
    name: 'hookgate_forward_attempts_total',
    help: 'Handoffs to targets (forwarded actions and callbacks), by target and outcome (accepted, retry, refused, gave-up).',
    labelNames: ['target', 'outcome'],
    registers,
  });
  const storeFailures = new Counter({ name: 'hookgate_store_commit_failures_total', help: 'Store commits refused (disk full, read-only, I/O error).', registers });
  const signatureFailures = new Counter({
    name: 'hookgate_signature_failures_total',
    help: 'Signed requests refused, by scheme and reason (missing, malformed, mismatch, expired).',
    labelNames: ['scheme', 'reason'],
    registers,
  });
  const reloadFailed = new Gauge({ name: 'hookgate_config_reload_failed', help: '1 while the last config reload failed (the previous mappings still serve), else 0.', registers });
  const reloadSuccess = new Gauge({
    name: 'hookgate_config_last_reload_success_timestamp_seconds',
    help: 'When the mappings in force were loaded (start-up or the last successful reload), Unix seconds.',
    registers,
  });
  if (options.depths !== undefined) registerQueueGauges(options.depths, registers);
  const bodyBytesHeld = options.bodyBytesHeld;
  if (bodyBytesHeld !== undefined) {
    new Gauge({
      name: 'hookgate_body_budget_held_bytes',
      help: 'Bytes of request bodies held now, as charged to hooks.bodyBudgetBytes.',
      registers,
      collect() {
        this.set(bodyBytesHeld());
      },
    });
  }

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    observeRequest(route, status, seconds, code) {
      requests.inc({ route, status: String(status) });
      durations.observe({ route }, seconds);
      if (status === 401) authFailures.inc({ outcome: 'unauthorized' });
      if (status === 429 && (code === undefined || code === 'TOO_MANY_AUTH_FAILURES')) authFailures.inc({ outcome: 'throttled' });
      if (status === 413) tooLarge.inc();
    },
    observeTransform(module, ms, outcome) {
      const labels = { module: boundedLabel(module), outcome };
      transformSeconds.observe(labels, ms / 1000);
      if (TRANSFORM_FAILURES.has(outcome)) transformFailures.inc(labels);
    },
    runFinished(status) {
      runsFinished.inc({ status: RUN_STATUSES.has(status) ? status : 'other' });
    },
    deliveryFailed(channel) {
      deliveryFailures.inc({ channel: boundedLabel(channel) });
    },
    modelCalled(origin, provider) {
      modelCalls.inc({ origin, provider: boundedLabel(provider) });
    },
    handedOff(target, outcome) {
      handoffs.inc({ target: boundedLabel(target), outcome: boundedLabel(outcome) });
    },
    storeCommitFailed() {
      storeFailures.inc();
    },
    signatureFailed(scheme, reason) {
      signatureFailures.inc({ scheme: boundedLabel(scheme), reason: boundedLabel(reason) });
    },
    configReloadState(ok, lastSuccessMs) {
      reloadFailed.set(ok ? 0 : 1);
      reloadSuccess.set(lastSuccessMs / 1000);
    },
    gmail: createGmailMetrics(registers),
    admission: createAdmissionMetrics(registers, options.openDebounceGroups),
    limits: createLimitMetrics(registers, options.limits),
    relay: createRelayMetrics(registers, options.relayBacklogs, options.now),
  };
}

/**
 * Queue depths are read from the store when scraped, so they are never stale and cost nothing
 * between scrapes; one read serves both gauges of a scrape.
 */
function registerQueueGauges(loadDepths: () => Promise<QueueDepths>, registers: Registry[]): void {
  const readDepths = oneReadPerScrape(loadDepths);
  new Gauge({
    name: 'hookgate_pending_events',
    help: 'Main-session events waiting for a heartbeat.',
    registers,
    async collect() {
      const depths = await readDepths();
      if (depths !== undefined) this.set(depths.pendingEvents);
    },
  });
  new Gauge({
    name: 'hookgate_runs',
    help: 'Agent runs waiting or executing, by status (queued, running).',
    labelNames: ['status'],
    registers,
    async collect() {
      const depths = await readDepths();
      if (depths === undefined) return;
      this.set({ status: 'queued' }, depths.runs.queued);
      this.set({ status: 'running' }, depths.runs.running);
    },
  });
}

/** Module and channel names come from config, but a label is cut short anyway so a mistake cannot explode a series. */
function boundedLabel(value: string): string {
  return value.length <= 100 ? value : value.slice(0, 100);
}
