import type { ModelCalls, Store } from '../store/port.js';

/** The window `hookgate status` counts model calls over. */
const WINDOW_MS = 3_600_000;

/** Model calls of the last hour, by origin, of every instance on the store (runs and heartbeats by their start). */
export function readModelCalls(store: Store, now: number): Promise<ModelCalls> {
  return store.modelCalls(now - WINDOW_MS);
}

/** `model calls, last hour: 12 runs, 3 heartbeats`: what a spend cap is judged by (budgets count runs only). */
export function formatModelCalls(calls: ModelCalls): string {
  const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `model calls, last hour: ${count(calls.runs, 'run')}, ${count(calls.heartbeats, 'heartbeat')}`;
}
