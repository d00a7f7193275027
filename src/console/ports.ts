import type { DebounceGroupView, EventView, ForceOutcome, HeartbeatView, LimitOverview, RetryOutcome, RunFilter, RunStatus, RunView } from '../store/port.js';
import type { HookRequest } from '../mapping/engine.js';
import type { PendingRunListView, PendingRunView } from '../admission/pending-view.js';
import type { PendingRunFilter } from '../store/debounce-port.js';
import type { MappingSource } from '../mapping/mapping-records.js';
import type { RequestLog } from './request-log.js';
import type { RelayStatus } from '../relay/status.js';

/** What the console reads and does, given by the composition root (src/service.ts); no SQL here. */
export interface ConsolePorts {
  runs(filter: RunFilter): Promise<{ runs: RunView[]; next?: string }>;
  /** Debounce groups that will become runs, as the run list pages runs. */
  pendingRuns(filter: PendingRunFilter): Promise<{ runs: PendingRunListView[]; next?: string }>;
  /** A run, or the debounce group (not fired yet) that will become it. */
  run(runId: string): Promise<RunView | PendingRunView | undefined>;
  runCounts(): Promise<Record<RunStatus, number>>;
  pendingEvents(limit: number, includeWakeText: boolean): Promise<EventView[]>;
  pendingEventCount(): Promise<number>;
  heartbeats(limit: number): Promise<HeartbeatView[]>;
  retryRun(runId: string): Promise<RetryOutcome>;
  /** Lets a queued run start past its budget and throttle (logged as done from the console). */
  startRun(runId: string): Promise<ForceOutcome>;
  /** Waiting runs by reason, budgets, provider circuits; absent without run limits. */
  limits?: () => Promise<LimitOverview>;
  /** The live mapping sources (config and presets), in matching order. */
  mappingSources(): MappingSource[];
  /** `hookgate try`'s explanation (JSON form and text) by the engine in force; undefined when hooks have no mappings. */
  explain(request: HookRequest): Promise<{ json: Record<string, unknown>; text: string } | undefined>;
  storeWritable(): boolean;
  sandbox(): { workers: number; inUse: boolean };
  /** Config reload state when the service exposes one (last success / failure); undefined otherwise. */
  reloadState?: () => unknown;
  requestLog: RequestLog;
  /** Debounce groups waiting to fire, soonest first, and how many are open. */
  debounceGroups?: (limit: number) => Promise<{ open: number; groups: DebounceGroupView[] }>;
  /** Each relay target's backlog, oldest event, consumers and drops (docs/relay.md); absent or empty without relay targets. */
  relay?: () => Promise<RelayStatus[]>;
}
