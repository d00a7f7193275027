import type pg from 'pg';
import { HookError } from '../../errors.js';

/** What every query helper here needs: a pool or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

/** How long callers are told to wait when the database cannot be reached. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATE classes that mean "the database cannot serve us right now", not "this statement is
 * wrong": connection exceptions (08), insufficient resources (53), operator intervention such as a
 * shutdown or restart (57P), a read-only server (25006), serialisation failures and deadlocks (40).
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P|40)|^25006$/;

/** True for a failure that a later retry may not meet: the network, the server going away, its load. */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  // pg reports a SQLSTATE as a 5-character code; anything else (ECONNREFUSED, "Connection
  // terminated", a connect timeout) never reached a working server.
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return TRANSIENT_SQLSTATE.test(code);
  return true;
}

/**
 * A transient failure becomes STORE_UNAVAILABLE (503 with Retry-After for a request): the caller
 * retries and nothing half-written remains. Anything else is a bug and is thrown as it is.
 */
export function storeError(error: unknown): unknown {
  if (error instanceof HookError || !isTransient(error)) return error;
  return new HookError('STORE_UNAVAILABLE', 'the store cannot accept requests right now, retry later', {
    retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
    cause: error,
  });
}

/** One statement; a transient failure rejects with STORE_UNAVAILABLE. */
export async function query<R extends pg.QueryResultRow>(db: Queryable, sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
  try {
    return await db.query<R>(sql, params);
  } catch (error) {
    throw storeError(error);
  }
}

/** A connection of the pool; a failure to get one is the store's STORE_UNAVAILABLE. */
export async function connectClient(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw storeError(error);
  }
}

/**
 * fn inside BEGIN … COMMIT on one connection of the pool, rolled back on any error. A connection
 * that failed mid-way is destroyed instead of going back to the pool.
 */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connectClient(pool);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError as Error;
    });
    throw storeError(error);
  } finally {
    client.release(broken);
  }
}

/** The columns of RunRow, in a stable order (the table has more: seq, claimed_by, lease_until). */
export const RUN_COLUMNS =
  'run_id, created_at, status, hook, name, session_key, action, attempts, started_at, finished_at, reply, summary, error, delivery, retry_of, kind, waiting_for, not_before, notes, handoff, relay_target';
