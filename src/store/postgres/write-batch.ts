import type pg from 'pg';
import { sealAction, type SealedAction } from '../../actions/seal.js';
import type { Acceptance } from '../port.js';
import { claimKeys, type KeyedItem, type KeyOutcome } from './idempotency.js';

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
 * conflicting acceptance writes nothing), then every committed action with one multi-row INSERT
 * per table.
 */
export async function writeBatch(client: pg.PoolClient, batch: readonly Acceptance[], at: number, cutoff: number): Promise<ItemOutcome[]> {
  const sealed = batch.map(sealAcceptance);
  const keyed: KeyedItem[] = [];
  batch.forEach((acceptance, index) => {
    if (acceptance.idempotency === undefined || 'message' in (sealed[index] as Sealed)) return;
    keyed.push({ index, ...acceptance.idempotency, responseJson: JSON.stringify(acceptance.response) });
  });
  const keys = keyed.length === 0 ? new Map<number, KeyOutcome>() : await claimKeys(client, keyed, at, cutoff);
  const written: SealedAction[] = [];
  const outcomes = sealed.map((item, index): ItemOutcome => {
    if ('message' in item) return { kind: 'unsealable', message: item.message };
    const key = keys.get(index);
    if (key !== undefined && key.kind !== 'write') return key;
    written.push(...item.sealed);
    return { kind: 'committed', suspicious: item.sealed.map((action) => action.suspicious), invisible: item.sealed.map((action) => action.invisible) };
  });
  await insertActions(client, written, at);
  return outcomes;
}

async function insertActions(client: pg.PoolClient, actions: readonly SealedAction[], at: number): Promise<void> {
  const wakes = actions.flatMap(({ action, trusted }) => (action.kind === 'wake' ? [{ action, trusted }] : []));
  const agents = actions.flatMap(({ action }) => (action.kind === 'wake' ? [] : [action]));
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
  if (agents.length > 0) {
    await client.query(
      `INSERT INTO runs (run_id, created_at, status, hook, name, session_key, action, kind)
         SELECT r, $1, 'queued', h, n, s, a, k FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS u(r, h, n, s, a, k, o) ORDER BY o`,
      [
        at,
        agents.map((a) => a.runId),
        agents.map((a) => a.origin.hook),
        agents.map((a) => a.name),
        agents.map((a) => (a.kind === 'agent' ? a.sessionKey : '')),
        agents.map((a) => JSON.stringify(a)),
        agents.map((a) => a.kind),
      ],
    );
  }
}
