import type { Logger } from '../log.js';
import type { RelaySettings } from '../forward/index.js';
import type { RelayObserver } from '../metrics/relay.js';
import type { Clock, TimerHandle } from '../runtime/clock.js';
import type { Store } from '../store/port.js';
import { droppedEnding } from './endings.js';

/** How often the relay targets' retention is applied. */
export const DEFAULT_SWEEP_MS = 60_000;
/** Events ended per transaction: a long outage's backlog is dropped in steps, never in one long lock. */
const DROP_BATCH = 500;

/** The drops of one target so far, as the console and `hookgate status` show them (state key relayDropKey). */
export interface RelayDrops {
  count: number;
  /** When the last drop happened (ISO 8601), and how many it dropped. */
  lastAt: string;
  lastCount: number;
}

export function relayDropKey(target: string): string {
  return `relay.dropped:${target}`;
}

export interface RelayRetentionDeps {
  store: Pick<Store, 'relay' | 'state'>;
  targets: ReadonlyMap<string, RelaySettings>;
  clock: Clock;
  logger: Logger;
  observer?: RelayObserver;
  everyMs?: number;
}

/**
 * Drops each relay target's events that nobody acknowledged within its retentionHours: their runs
 * end `error` (and their callbacks go out), with a log line, a metric and a note in the store that
 * the console and `hookgate status` show. Never an event younger than that: the backlog counts
 * toward maxQueued instead, so a sender is refused (503) rather than anything accepted dropped early.
 */
export function createRelayRetention(deps: RelayRetentionDeps): { start(): void; stop(): Promise<void>; sweep(): Promise<number> } {
  let timer: TimerHandle | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;
  const everyMs = deps.everyMs ?? DEFAULT_SWEEP_MS;

  async function sweepTarget(target: string, settings: RelaySettings): Promise<number> {
    let dropped = 0;
    for (;;) {
      const at = deps.clock.now();
      const ids = await deps.store.relay.dropOlderThan(target, at - settings.retentionMs, DROP_BATCH, droppedEnding(target, settings.retentionMs, at));
      dropped += ids.length;
      if (ids.length < DROP_BATCH || stopped) break;
    }
    if (dropped > 0) await recordDrops(target, dropped);
    return dropped;
  }

  async function recordDrops(target: string, dropped: number): Promise<void> {
    deps.observer?.dropped(target, dropped);
    const hours = settingsHours(deps.targets.get(target));
    deps.logger.warn({ event: 'relay.dropped', target, count: dropped }, `relay target "${target}": ${dropped} event(s) dropped, not acknowledged within ${hours} h (retentionHours)`);
    const earlier = parseDrops(await deps.store.state.get(relayDropKey(target)));
    const drops: RelayDrops = { count: (earlier?.count ?? 0) + dropped, lastAt: new Date(deps.clock.now()).toISOString(), lastCount: dropped };
    await deps.store.state.set(relayDropKey(target), JSON.stringify(drops));
  }

  async function sweep(): Promise<number> {
    let total = 0;
    for (const [target, settings] of deps.targets) {
      try {
        total += await sweepTarget(target, settings);
      } catch (error) {
        deps.logger.error({ event: 'relay.retention_failed', target, err: (error as Error).message }, 'could not apply a relay target’s retention; trying again later');
      }
    }
    return total;
  }

  const tick = (): void => {
    running = sweep().finally(() => {
      running = undefined;
      if (!stopped) timer = deps.clock.setTimer(tick, everyMs);
    });
  };

  return {
    start() {
      if (deps.targets.size === 0) return;
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) deps.clock.clearTimer(timer);
      await running?.catch(() => undefined);
    },
    sweep,
  };
}

function settingsHours(settings: RelaySettings | undefined): number {
  return settings === undefined ? 0 : settings.retentionMs / 3_600_000;
}

/** A target's drops as kept in the store; undefined when none were recorded (or the value is unreadable). */
export function parseDrops(value: string | undefined): RelayDrops | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<RelayDrops> | null;
    return typeof parsed?.count === 'number' && typeof parsed.lastAt === 'string' ? (parsed as RelayDrops) : undefined;
  } catch {
    return undefined;
  }
}
