import type pg from 'pg';

/** An acceptance's key as the batch sees it. */
export interface KeyedItem {
  index: number;
  key: string;
  fingerprint: string;
  responseJson: string;
}

export type KeyOutcome = { kind: 'write' } | { kind: 'replayed'; responseJson: string } | { kind: 'conflict' };

/**
 * Claims the batch's idempotency keys in the database, which makes a key unique across every
 * instance: a key inserted by a transaction still open elsewhere makes this INSERT wait for it,
 * then see its row. A key is claimed when it is new or its row expired (created_at ≤ cutoff);
 * otherwise the stored first response decides (same fingerprint: replayed, else conflict). Within
 * the batch the first item with a key claims it and later ones are judged against it. Keys are
 * inserted in sorted order, so two instances' batches never deadlock on each other's keys.
 */
export async function claimKeys(client: pg.PoolClient, items: readonly KeyedItem[], at: number, cutoff: number): Promise<Map<number, KeyOutcome>> {
  const owners = new Map<string, KeyedItem>();
  for (const item of items) if (!owners.has(item.key)) owners.set(item.key, item);
  const sorted = [...owners.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const inserted = await client.query<{ key: string }>(
    `INSERT INTO idempotency (key, created_at, fingerprint, response)
       SELECT k, $1, f, r FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(k, f, r, o) ORDER BY o
     ON CONFLICT (key) DO UPDATE SET created_at = EXCLUDED.created_at, fingerprint = EXCLUDED.fingerprint, response = EXCLUDED.response
       WHERE idempotency.created_at <= $5
     RETURNING key`,
    [at, sorted.map((item) => item.key), sorted.map((item) => item.fingerprint), sorted.map((item) => item.responseJson), cutoff],
  );
  const claimed = new Set(inserted.rows.map((row) => row.key));
  const stored = new Map<string, { fingerprint: string; responseJson: string }>();
  for (const item of owners.values()) if (claimed.has(item.key)) stored.set(item.key, item);
  const taken = sorted.filter((item) => !claimed.has(item.key)).map((item) => item.key);
  if (taken.length > 0) {
    const rows = await client.query<{ key: string; fingerprint: string; response: string }>(
      'SELECT key, fingerprint, response FROM idempotency WHERE key = ANY($1::text[])',
      [taken],
    );
    for (const row of rows.rows) stored.set(row.key, { fingerprint: row.fingerprint, responseJson: row.response });
  }
  const outcomes = new Map<number, KeyOutcome>();
  for (const item of items) {
    const first = stored.get(item.key);
    if (owners.get(item.key) === item && claimed.has(item.key)) outcomes.set(item.index, { kind: 'write' });
    else if (first === undefined) throw new Error(`idempotency key row vanished within its transaction`);
    else outcomes.set(item.index, first.fingerprint === item.fingerprint ? { kind: 'replayed', responseJson: first.responseJson } : { kind: 'conflict' });
  }
  return outcomes;
}
