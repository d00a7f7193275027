import type pg from 'pg';
import type { Logger } from '../../log.js';

/** How often the database's time is read again (drift of the local monotonic clock stays in milliseconds). */
export const RESYNC_EVERY_MS = 60_000;
/** Reads per sync: the one with the shortest round trip is kept (its midpoint is the best estimate). */
const SAMPLES = 3;

export interface DatabaseClock {
  /** The database's time now, in whole ms since the epoch; never goes backwards. */
  now(): number;
  /** Reads the database's time (resolves once read), then again every RESYNC_EVERY_MS until stop(). */
  start(): Promise<void>;
  stop(): void;
}

export interface DatabaseClockDeps {
  /** The database's clock, in ms since the epoch (fractional). */
  readDatabaseTime: () => Promise<number>;
  /** A monotonic clock in ms (performance.now): the local wall clock is never read. */
  monotonic?: () => number;
  logger?: Logger;
}

/** `clock_timestamp()` in ms: the time when the statement reads it, not when its transaction began. */
export function readPostgresTime(pool: pg.Pool): () => Promise<number> {
  return async () => {
    const { rows } = await pool.query<{ ms: number }>('SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8 * 1000 AS ms');
    return Number(rows[0]?.ms);
  };
}

/**
 * Time from the database, for every instance sharing it: the database's clock read at a known
 * moment of the local monotonic clock, then advanced by that monotonic clock. Two instances whose
 * own clocks differ (or jump) still agree to within half a read's round trip. now() needs start()
 * to have resolved.
 */
export function createDatabaseClock(deps: DatabaseClockDeps): DatabaseClock {
  const monotonic = deps.monotonic ?? (() => performance.now());
  let base: { databaseMs: number; monotonicMs: number } | undefined;
  let last = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;

  async function sample(): Promise<{ databaseMs: number; monotonicMs: number; roundTripMs: number }> {
    const before = monotonic();
    const databaseMs = await deps.readDatabaseTime();
    const after = monotonic();
    return { databaseMs, monotonicMs: (before + after) / 2, roundTripMs: after - before };
  }

  async function sync(): Promise<void> {
    let best = await sample();
    for (let i = 1; i < SAMPLES; i += 1) {
      const next = await sample();
      if (next.roundTripMs < best.roundTripMs) best = next;
    }
    base = { databaseMs: best.databaseMs, monotonicMs: best.monotonicMs };
  }

  return {
    now() {
      if (base === undefined) throw new Error('the database clock was never read');
      // A later sync may put the time a little earlier: hold it instead of going back.
      last = Math.max(last, Math.round(base.databaseMs + (monotonic() - base.monotonicMs)));
      return last;
    },
    async start() {
      await sync();
      if (timer !== undefined) return;
      timer = setInterval(() => {
        sync().catch((error: unknown) => deps.logger?.debug({ event: 'store.clock_sync_failed', err: (error as Error).message }, 'could not read the database clock; going on from the last reading'));
      }, RESYNC_EVERY_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
