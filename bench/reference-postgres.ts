/**
 * Durable limit on PostgreSQL: the HTTP limit plus one row per request (the body) inserted into
 * PostgreSQL, the rows of one event-loop turn committed in one transaction (a multi-row insert,
 * as Hookgate's PostgreSQL store does) before answering; up to REF_IN_FLIGHT transactions at once,
 * later requests gather into the next. The least a server on this stack must do to acknowledge
 * durably into PostgreSQL.
 * Env: REF_PG_URL (connection URL), REF_IN_FLIGHT (default 8, as Hookgate's pool of 10 minus 2).
 */
import pg from 'pg';
import { serveReference } from './reference-server.js';

const pool = new pg.Pool({ connectionString: process.env['REF_PG_URL'], max: Number(process.env['REF_IN_FLIGHT'] ?? 8) + 1 });
await pool.query('CREATE TABLE IF NOT EXISTS bodies (id BIGSERIAL PRIMARY KEY, created_at BIGINT NOT NULL, body TEXT NOT NULL)');
const maxInFlight = Number(process.env['REF_IN_FLIGHT'] ?? 8);
let batch: Array<{ body: string; done: () => void; failed: (error: unknown) => void }> = [];
let inFlight = 0;
let scheduled = false;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(flush);
}

function flush(): void {
  scheduled = false;
  if (batch.length === 0 || inFlight >= maxInFlight) return;
  const items = batch;
  batch = [];
  inFlight += 1;
  commit(items).finally(() => {
    inFlight -= 1;
    if (batch.length > 0) schedule();
  });
}

async function commit(items: typeof batch): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO bodies (created_at, body) SELECT $1, b FROM unnest($2::text[]) AS u(b)', [Date.now(), items.map((item) => item.body)]);
    await client.query('COMMIT');
    for (const item of items) item.done();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    for (const item of items) item.failed(error);
  } finally {
    client.release();
  }
}

serveReference(
  (body) =>
    new Promise<void>((resolve, reject) => {
      batch.push({ body, done: resolve, failed: reject });
      schedule();
    }),
);
