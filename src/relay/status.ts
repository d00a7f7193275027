import type { RelayTargetView, Store } from '../store/port.js';
import { parseDrops, relayDropKey, type RelayDrops } from './retention.js';

/** A relay target as `hookgate status` and the console show it: its backlog, its consumers, what retention dropped. */
export interface RelayStatus extends RelayTargetView {
  /** Events dropped past retentionHours so far (absent: none). */
  dropped?: RelayDrops;
}

/** The relay targets named (the config's `targets` of kind `relay`), as the store knows them now. */
export async function readRelayStatus(store: Pick<Store, 'relay' | 'state'>, targets: readonly string[], now: number): Promise<RelayStatus[]> {
  if (targets.length === 0) return [];
  const views = await store.relay.overview(targets, now);
  const statuses: RelayStatus[] = [];
  for (const view of views) {
    const dropped = parseDrops(await store.state.get(relayDropKey(view.target)));
    statuses.push(dropped === undefined ? view : { ...view, dropped });
  }
  return statuses;
}

/** The names of a config's relay targets. */
export function relayTargetNames(targets: Readonly<Record<string, { kind?: unknown }>> | undefined): string[] {
  return Object.entries(targets ?? {})
    .filter(([, target]) => target.kind === 'relay')
    .map(([name]) => name);
}

/** `2 h 5 min`, `40 s`: how long ago, for a line of text. */
export function ageText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** One relay target in lines of text (status, the console shares the wording). */
export function formatRelayStatus(status: RelayStatus, now: number): string[] {
  const oldest = status.oldestAt === undefined ? '' : `, the oldest ${ageText(now - status.oldestAt)} old`;
  const lines = [`relay ${status.target}: ${status.backlog} waiting (${status.leased} leased to a consumer)${oldest}`];
  const consumers = status.consumers.map((consumer) => `${consumer.consumer} (${ageText(now - consumer.lastSeen)} ago)`);
  lines.push(`  consumers last seen: ${consumers.length === 0 ? 'none yet' : consumers.join(', ')}`);
  if (status.dropped !== undefined) lines.push(`  DROPPED by retention: ${status.dropped.count} event(s), the last ${status.dropped.lastCount} at ${status.dropped.lastAt}`);
  return lines;
}
