import type pg from 'pg';
import { sealAction, type SealedAction } from '../../actions/seal.js';
import { runRowOf } from '../run-insert.js';
import type { Acceptance } from '../port.js';
import { claimKeys, type KeyedItem, type KeyOutcome } from './idempotency.js';
import { postgresRateHits } from './rate-hit.js';
import type { RateVerdict } from '../limit-types.js';

import type { ItemOutcome } from '../acceptance-outcomes.js';

export type { ItemOutcome };

type Sealed = { sealed: SealedAction[] } | { message: string };

/** The seal stage (src/actions/seal.ts) for one acceptance; a failure refuses that acceptance alone. */
export function sealAcceptance(acceptance: Acceptance): Sealed {
  try {
    return { sealed: acceptance.actions.map(sealAction) };
  } catch (error) {
    return { message: (error as Error).message };
  }
}

/**
 * Writes one batch of acceptances inside the caller's transaction: the keys first (a replayed or
 * conflicting acceptance writes nothing), then the rate hits (a refused acceptance writes nothing
 * and gives its key back), then every committed action with one multi-row INSERT per table.
 */
export async function writeBatch(client: pg.PoolClient, batch: readonly Acceptance[], at: number, cutoff: number): Promise<ItemOutcome[]> {
  const sealed = batch.map(sealAcceptance);
  const keyed: KeyedItem[] = [];
  batch.forEach((acceptance, index) => {
    if (acceptance.idempotency === undefined || 'message' in (sealed[index] as Sealed)) return;
    keyed.push({ index, ...acceptance.idempotency, responseJson: JSON.stringify(acceptance.response) });
  });
  const keys = keyed.length === 0 ? new Map<number, KeyOutcome>() : await claimKeys(client, keyed, at, cutoff);
  const limited = await judgeRateHits(client, batch, sealed, keys);
  const written: SealedAction[] = [];
  const outcomes = sealed.map((item, index): ItemOutcome => {
    if ('message' in item) return { kind: 'unsealable', message: item.message };
    const refused = limited.get(index);
    if (refused !== undefined) return refused;
    const key = keys.get(index);
    if (key !== undefined && key.kind !== 'write') return key;
    written.push(...item.sealed);
    return { kind: 'committed', suspicious: item.sealed.map((action) => action.suspicious), invisible: item.sealed.map((action) => action.invisible) };
  });
  await insertActions(client, written, at);
  return outcomes;
}

async function insertActions(client: pg.PoolClient, actions: readonly SealedAction[], at: number): Promise<void> {
  const runs = actions.flatMap(({ action }) => runRowOf(action) ?? []);
  const wakes = actions.flatMap(({ action, trusted }) => (action.kind === 'wake' && runRowOf(action) === undefined ? [{ action, trusted }] : []));
  if (wakes.length > 0) {
    // WITH ORDINALITY … ORDER BY: event ids grow in the order the requests were accepted.
    await client.query(
      `INSERT INTO events (created_at, text, mode, hook, mapping_id, trusted)
         SELECT $1, t, m, h, mi, tr FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[]) WITH ORDINALITY AS u(t, m, h, mi, tr, o) ORDER BY o`,
      [
        at,
        wakes.map((w) => w.action.text),
        wakes.map((w) => w.action.mode),
        wakes.map((w) => w.action.origin.hook),
        wakes.map((w) => w.action.origin.mappingId ?? null),
        wakes.map((w) => (w.trusted ? 1 : 0)),
      ],
    );
  }
  if (runs.length > 0) {
    await client.query(
      `INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, kind, relay_target)
         SELECT r, $1, 'queued', h, n, s, a, k, t FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS u(r, h, n, s, a, k, t, o) ORDER BY o`,
      [at, runs.map((r) => r.runId), runs.map((r) => r.hook), runs.map((r) => r.name), runs.map((r) => r.sessionKey), runs.map((r) => r.action), runs.map((r) => r.kind), runs.map((r) => r.relayTarget)],
    );
  }
}

type RateLimited = Extract<ItemOutcome, { kind: 'rate-limited' }>;

/**
 * The batch's rate hits (postgresRateHits: buckets locked in bucket order, hits decided in arrival
 * order). Only acceptances that would commit are counted. A refused one's freshly claimed key is
 * deleted again, and a later acceptance of the batch that only replayed that key is refused with it
 * (it would replay a response never stored).
 */
async function judgeRateHits(client: pg.PoolClient, batch: readonly Acceptance[], sealed: readonly Sealed[], keys: ReadonlyMap<number, KeyOutcome>): Promise<Map<number, RateLimited>> {
  const limited = new Map<number, RateLimited>();
  const counted = batch.flatMap((acceptance, index) => {
    const key = keys.get(index);
    const commits = !('message' in (sealed[index] as Sealed)) && (key === undefined || key.kind === 'write');
    return commits && acceptance.rateHit !== undefined ? [{ index, hit: acceptance.rateHit }] : [];
  });
  if (counted.length === 0) return limited;
  const verdicts = await postgresRateHits(client, counted.map((entry) => entry.hit));
  const releasedKeys = new Map<string, RateLimited>();
  counted.forEach(({ index }, position) => {
    const verdict = verdicts[position] as RateVerdict;
    if (verdict.allowed) return;
    const refused: RateLimited = { kind: 'rate-limited', retryAfterMs: verdict.retryAfterMs };
    limited.set(index, refused);
    const key = batch[index]?.idempotency?.key;
    if (key !== undefined) releasedKeys.set(key, refused);
  });
  if (releasedKeys.size === 0) return limited;
  await client.query('DELETE FROM idempotency WHERE key = ANY($1::text[])', [[...releasedKeys.keys()]]);
  batch.forEach((acceptance, index) => {
    const released = acceptance.idempotency === undefined ? undefined : releasedKeys.get(acceptance.idempotency.key);
    if (released !== undefined && keys.get(index)?.kind === 'replayed') limited.set(index, released);
  });
  return limited;
}
