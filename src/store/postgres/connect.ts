import pg from 'pg';
import { HookError } from '../../errors.js';
import { StoreMissingError } from '../port.js';
import type { Logger } from '../../log.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { describePostgresUrl } from './url.js';

export interface PostgresOptions {
  url: string;
  /** Connections at most (storage.pool). */
  pool: number;
  /** Where the tables live (storage.schema); created when missing. */
  schema: string;
  logger: Logger;
  /** How long a connection attempt may take before the database counts as unreachable. */
  connectTimeoutMs?: number;
  /**
   * 'command' (`status`, `runs retry`): the schema must exist already (StoreMissingError if not);
   * a command never creates or migrates it beside running services.
   */
  role?: 'service' | 'command';
}

const INT8_OID = 20;

/**
 * BIGINT columns hold times in ms and row ids: numbers, not the strings pg returns by default
 * (both stay far below 2^53).
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * A pool on the configured database, its schema migrated. Throws STORE_UNAVAILABLE with a one-line
 * message (the URL without its password) when the database cannot be reached, so `serve` refuses
 * to start with it instead of a stack.
 */
export async function openPostgres(options: PostgresOptions): Promise<pg.Pool> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.pool,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    // A server that vanished without closing the connection (a network partition) fails the query
    // after this instead of leaving its caller waiting for TCP to give up; keep-alive notices sooner.
    query_timeout: 30_000,
    keepAlive: true,
    // Every connection works in the configured schema; the name matched ^[a-z_][a-z0-9_]*$ (config).
    options: `-c search_path=${options.schema}`,
    types,
  });
  // An idle connection that the server dropped (restart, network) must not end the process: the
  // next checkout opens a fresh one, and a failing query reports through its caller.
  pool.on('error', (error) => options.logger.warn({ event: 'store.connection_lost', err: error.message }, 'a PostgreSQL connection was lost'));
  // A connection checked out (a transaction, the heartbeat's lock) that the server drops emits
  // 'error' on its client, which would otherwise end the process; its current query fails anyway.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    if (options.role === 'command') await requireSchema(pool, options.schema, options.url);
    else await migrate(pool, options.schema, options.logger);
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error instanceof StoreMissingError ? error : unreachable(options.url, error);
  }
}

async function requireSchema(pool: pg.Pool, schema: string, url: string): Promise<void> {
  const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [`${schema}.hookgate_migrations`]);
  if (rows[0]?.found === null) throw new StoreMissingError(`no Hookgate store in schema ${schema} of ${describePostgresUrl(url)}`);
}

/**
 * Brings the schema up to date under an advisory lock: instances that start together wait for
 * the first one, then find nothing left to do.
 */
export async function migrate(pool: pg.Pool, schema: string, logger: Logger): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`hookgate.migrate.${schema}`]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(schema)}`);
      await client.query('CREATE TABLE IF NOT EXISTS hookgate_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const { rows } = await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM hookgate_migrations');
      for (let version = rows[0]?.version ?? 0; version < POSTGRES_MIGRATIONS.length; version += 1) {
        await applyMigration(client, version);
        logger.info({ event: 'store.migrated', version: version + 1 }, 'PostgreSQL schema migrated');
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`hookgate.migrate.${schema}`]);
    }
  } finally {
    client.release();
  }
}

async function applyMigration(client: pg.PoolClient, version: number): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(POSTGRES_MIGRATIONS[version] as string);
    await client.query('INSERT INTO hookgate_migrations (version, applied_at) VALUES ($1, $2)', [version + 1, Date.now()]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function unreachable(url: string, error: unknown): HookError {
  if (error instanceof HookError) return error;
  const reason = (error as Error).message || (error as NodeJS.ErrnoException).code || 'unknown error';
  return new HookError('STORE_UNAVAILABLE', `PostgreSQL at ${describePostgresUrl(url)}: ${reason}`, { cause: error });
}
