/**
 * Shapes of the API's answers (src/console/api.ts). Those the server already declares are its own
 * types, imported as types only (esbuild erases them, nothing of the server reaches the bundle), so
 * the page and the API cannot drift apart.
 */
import type { MinuteBucket, RequestEntry } from '../request-log.js';
import type { EventView, HeartbeatView, RecordedDelivery, RunView } from '../../store/port-types.js';
import type { LimitOverview } from '../../store/limit-types.js';
import type { PendingRunListView, PendingRunView } from '../../admission/pending-view.js';
import type { RelayStatus } from '../../relay/status.js';

export type { EventView, MinuteBucket, RequestEntry };
export type Delivery = RecordedDelivery;
export type Run = RunView;
export type PendingRun = PendingRunView;
/** A row of the Runs list: a run, or a debounce group that will become one (status `pending`). */
export type RunRow = RunView | PendingRunListView;
export type Heartbeat = HeartbeatView;

export interface Overview {
  perMinute: MinuteBucket[];
  latestRequest: number;
  queues: { pendingEvents: number; runs: Record<string, number> };
  lastHeartbeat: Heartbeat | null;
  sandbox: { workers: number; inUse: boolean };
  reload: unknown;
  store: { writable: boolean };
  debounce: { open: number; groups: Array<{ groupId: string; mappingId: string; key: string; kind: 'agent' | 'wake'; status: string; deliveries: number; firesAt: number }> } | null;
  limits: LimitOverview | null;
  /** Each relay target (none without relay targets). */
  relay: RelayStatus[];
  /** The server's time of the answer (ms): ages are measured from it. */
  now: number;
}

export interface MappingView {
  id: string;
  source: 'config' | 'preset';
  label: string;
  match: { path?: string; source?: string };
  action: string;
  templates: Record<string, string>;
  transform?: { module: string; export?: string };
  signature?: string;
  hits: number;
  errors: number;
}
