/** Shapes of the API's answers (src/console/api.ts and the store's views). */

export interface Delivery {
  status: 'delivered' | 'failed' | 'skipped';
  channel?: string;
  to?: string;
  reason?: string;
  attempts?: number;
  parts?: number;
}

export interface Run {
  runId: string;
  status: string;
  hook: string;
  name: string;
  sessionKey: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  summary?: string;
  error?: string;
  delivery?: Delivery;
  retryOf?: string;
  retriedBy?: string;
  attempts: number;
}

export interface RequestEntry {
  seq: number;
  at: number;
  method: string;
  hook: string;
  status: number;
  code?: string;
  durationMs: number;
  idempotencyKey?: string;
  deliveryId?: string;
  replayed?: boolean;
  mappingIds: string[];
  actions: string[];
  payload?: unknown;
  headers?: Record<string, string>;
}

export interface MinuteBucket {
  minute: number;
  accepted: number;
  refused: Record<string, number>;
}

export interface Heartbeat {
  id: number;
  status: string;
  startedAt: string;
  finishedAt?: string;
  events: number;
  reply?: string;
  error?: string;
  delivery?: Delivery;
}

export interface Overview {
  perMinute: MinuteBucket[];
  latestRequest: number;
  queues: { pendingEvents: number; runs: Record<string, number> };
  lastHeartbeat: Heartbeat | null;
  sandbox: { workers: number; inUse: boolean };
  reload: unknown;
  store: { writable: boolean };
}

export interface EventView {
  id: number;
  createdAt: string;
  mode: string;
  hook: string;
  mappingId?: string;
  runId?: string;
  chars: number;
  text?: string;
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
