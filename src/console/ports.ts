import type { RetryOutcome } from '../store/retry-repo.js';
import type { RunFilter, EventView, HeartbeatView } from '../store/console-repo.js';
import type { RunStatus, RunView } from '../store/runtime-repo.js';
import type { HookRequest } from '../mapping/engine.js';
import type { MappingSource } from '../mapping/sources.js';
import type { RequestLog } from './request-log.js';

/** What the console reads and does, given by the composition root (src/service.ts); no SQL here. */
export interface ConsolePorts {
  runs(filter: RunFilter): { runs: RunView[]; next?: string };
  run(runId: string): RunView | undefined;
  runCounts(): Record<RunStatus, number>;
  pendingEvents(limit: number, includeWakeText: boolean): EventView[];
  pendingEventCount(): number;
  heartbeats(limit: number): HeartbeatView[];
  retryRun(runId: string): Promise<RetryOutcome>;
  /** The live mapping sources (config and presets), in matching order. */
  mappingSources(): MappingSource[];
  /** `hookgate try`'s explanation (JSON form and text) by the engine in force; undefined when hooks have no mappings. */
  explain(request: HookRequest): Promise<{ json: Record<string, unknown>; text: string } | undefined>;
  storeWritable(): boolean;
  sandbox(): { workers: number; inUse: boolean };
  /** Config reload state when the service exposes one (last success / failure); undefined otherwise. */
  reloadState?: () => unknown;
  requestLog: RequestLog;
}
