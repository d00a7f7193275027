import type pg from 'pg';
import type { Store, StoreOptions } from '../port.js';
import { openPostgres } from './connect.js';
import { createPostgresIngress, type PostgresIngress } from './ingress.js';
import { createPostgresRuns } from './runs.js';
import { createPostgresLimits } from './limits.js';
import { createPostgresSession } from './session.js';
import { createPostgresDeliveries, createPostgresGmail, createPostgresState, createPostgresTranscripts } from './small-stores.js';
import { query } from './sql.js';
import { createPostgresDebounce } from './debounce.js';
import { createPostgresOwnMessages } from './own-messages.js';
import { createPostgresRelay } from './relay.js';
import { createDatabaseClock, readPostgresTime } from './database-clock.js';

export interface PostgresStoreSettings {
  /** storage.url */
  url: string;
  /** storage.pool: connections of this instance at most. */
  pool: number;
  /** storage.schema */
  schema: string;
  /** How long connecting may take before the database counts as unreachable (default 5 s). */
  connectTimeoutMs?: number;
}

export interface PostgresStore extends Store {
  readonly ingress: PostgresIngress;
  /** The pool, for tests and the bench (e.g. to count rows). */
  readonly pool: pg.Pool;
}

/**
 * The PostgreSQL adapter of the store port: any number of instances share one database. Opening
 * migrates the schema (once, under an advisory lock) and fails with STORE_UNAVAILABLE when the
 * database cannot be reached.
 */
export async function openPostgresStore(settings: PostgresStoreSettings, options: StoreOptions): Promise<PostgresStore> {
  const pool = await openPostgres({ ...settings, logger: options.logger, role: options.role });
  // Instances sharing the database go by its clock, not their own (docs/deployment.md).
  const clock = createDatabaseClock({ readDatabaseTime: readPostgresTime(pool), logger: options.logger });
  await clock.start().catch(async (error: unknown) => {
    await pool.end();
    throw error;
  });
  const now = options.now ?? (() => clock.now());
  // Group commit keeps a couple of connections for everything else (runtime, reads, probes).
  const ingress = createPostgresIngress(pool, { idempotencyTtlMs: options.idempotencyTtlMs, now, logger: options.logger, maxInFlight: Math.max(1, settings.pool - 2) });
  const runs = createPostgresRuns(pool);
  let closing: Promise<void> | undefined;
  return {
    pool,
    ingress,
    runs,
    session: createPostgresSession(pool, settings.schema),
    transcripts: createPostgresTranscripts(pool),
    deliveries: createPostgresDeliveries(pool),
    state: createPostgresState(pool),
    gmail: createPostgresGmail(pool, now),
    debounce: createPostgresDebounce(pool, options.idempotencyTtlMs),
    limits: createPostgresLimits(pool, settings.schema),
    ownMessages: createPostgresOwnMessages(pool),
    relay: createPostgresRelay(pool),
    now,
    async depths() {
      // Partial indexes on pending events and queued/running runs keep this cheap at every scrape.
      const { rows } = await query<{ events: number; queued: number; running: number; debounced: number }>(
        pool,
        `SELECT (SELECT COUNT(*)::int FROM events WHERE status = 'pending') AS events,
                (SELECT COUNT(*)::int FROM runs WHERE status = 'queued') AS queued,
                (SELECT COUNT(*)::int FROM runs WHERE status = 'running') AS running,
                (SELECT COUNT(*)::int FROM debounce_groups WHERE kind <> 'wake') AS debounced`,
      );
      const row = rows[0] ?? { events: 0, queued: 0, running: 0, debounced: 0 };
      return { pendingEvents: row.events, runs: { queued: row.queued, running: row.running, debounced: row.debounced } };
    },
    async modelCalls(since) {
      const { rows } = await query<{ runs: number; heartbeats: number }>(
        pool,
        `SELECT (SELECT COUNT(*)::int FROM runs WHERE started_at >= $1 AND kind = 'agent') AS runs,
                (SELECT COUNT(*)::int FROM heartbeats WHERE started_at >= $1) AS heartbeats`,
        [since],
      );
      const row = rows[0] ?? { runs: 0, heartbeats: 0 };
      return { runs: row.runs, heartbeats: row.heartbeats };
    },
    close() {
      clock.stop();
      closing ??= ingress.close().then(() => pool.end());
      return closing;
    },
  };
}
