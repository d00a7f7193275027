import type { AcceptedResponse } from '../actions/types.js';
import type { RoutedMapping } from '../mapping/engine.js';
import type { VerifiedEntry } from '../http/candidate-auth.js';
import { fingerprintOf, replayKeyOf } from '../http/replay-key.js';
import { checkedKey } from '../http/openclaw-fields.js';
import type { Store } from '../store/port.js';
import { HookError } from '../errors.js';
import type { Config } from '../config/schema.js';
import { presetEntries } from '../config/preset-schema.js';
import { PRESETS } from '../../presets/index.js';

/**
 * What the service keys this delivery by, so `try` can say what makes a new one: the sender's signed
 * delivery id (in a header, or the payload's own id), the signed body (with its signed time), or the
 * client's Idempotency-Key.
 */
type ReplayKeyedBy = { by: 'delivery-id'; header: string | undefined } | { by: 'signed-body'; timed: boolean } | { by: 'idempotency-key' };

/** What `hookgate try` reads from the store about this exact delivery: its first answer, or that its key was used for another body. */
export type TryReplay = { kind: 'replay'; response: AcceptedResponse; keyedBy: ReplayKeyedBy } | { kind: 'conflict' };

interface TryDelivery {
  /** The hook name, slashes trimmed. */
  name: string;
  payload: Record<string, unknown>;
  body: Buffer;
  /** Lower-cased names. */
  headers: Record<string, string>;
}

/**
 * The delivery's idempotency key and fingerprint as the service would store them: the verified
 * mapping's replay key; without signature headers, the first mapping's as if correctly signed,
 * where its scheme's key needs no signed time (a delivery id, or the body of an untimed scheme);
 * else the Idempotency-Key header. Undefined when the service would keep none.
 */
function keyOf(delivery: TryDelivery, candidates: readonly RoutedMapping[], verified: VerifiedEntry | undefined): { key: string; fingerprint: string; keyedBy: ReplayKeyedBy } | undefined {
  const entry = verified ?? { mapping: candidates[0], timestamp: undefined, signedContent: undefined };
  const signature = entry.mapping?.signature;
  if (entry.mapping !== undefined && signature !== undefined) {
    const id = signature.scheme.deliveryId(delivery.headers, delivery.payload);
    const computable = verified !== undefined || (signature.scheme.replayKey === 'delivery-id' ? id !== undefined : !signature.scheme.timestamped);
    if (!computable) return undefined;
    const signed = entry.signedContent ?? delivery.body;
    const keyedBy: ReplayKeyedBy = signature.scheme.replayKey === 'delivery-id' && id !== undefined ? { by: 'delivery-id', header: signature.scheme.deliveryIdHeader } : { by: 'signed-body', timed: signature.scheme.timestamped };
    return { key: replayKeyOf(entry.mapping.id, signature, id, entry.timestamp, signed), fingerprint: fingerprintOf(delivery.name, signed), keyedBy };
  }
  const given = delivery.headers['idempotency-key'];
  if (given === undefined) return undefined;
  try {
    return { key: checkedKey(given, 'Idempotency-Key'), fingerprint: fingerprintOf(delivery.name, delivery.body), keyedBy: { by: 'idempotency-key' } };
  } catch {
    return undefined; // the service answers 400 for it; try's own checks say nothing more here
  }
}

/** Whether the store already answered this delivery (read only; nothing is stored). */
export async function findReplay(store: Store, delivery: TryDelivery, candidates: readonly RoutedMapping[], verified: VerifiedEntry | undefined): Promise<TryReplay | undefined> {
  const found = keyOf(delivery, candidates, verified);
  if (found === undefined) return undefined;
  try {
    const response = await store.ingress.replay(found.key, found.fingerprint);
    return response === undefined ? undefined : { kind: 'replay', response, keyedBy: found.keyedBy };
  } catch (error) {
    if (error instanceof HookError && error.code === 'IDEMPOTENCY_CONFLICT') return { kind: 'conflict' };
    throw error;
  }
}

/** `--json`'s `replay`: null, `{ kind: "replay", status, body }` (the first answer) or `{ kind: "conflict" }`. */
export function replayJson(replay: TryReplay | undefined): Record<string, unknown> | null {
  if (replay === undefined) return null;
  return replay.kind === 'replay' ? { kind: 'replay', status: replay.response.status, body: replay.response.body } : { kind: 'conflict' };
}

/** The line `hookgate try` prints, so a user knows why sending this body again would start nothing. */
export function formatReplay(replay: TryReplay | undefined): string {
  if (replay === undefined) return '';
  if (replay.kind === 'conflict') return 'replay: this delivery\'s id was already accepted with another body: a real delivery would get 409 IDEMPOTENCY_CONFLICT and start nothing\n';
  const body: Record<string, unknown> = replay.response.body ?? {};
  const { runId, runIds } = body;
  const runs = typeof runId === 'string' ? `as run ${runId}` : Array.isArray(runIds) ? `as runs ${runIds.join(', ')}` : `(first answer ${replay.response.status} ${JSON.stringify(body)})`;
  return `replay: this body was already accepted ${runs}: a real delivery of it would be answered as a replay (the first answer again, Idempotent-Replayed) and start nothing new, whatever the config says now; ${howToSendAnew(replay.keyedBy)}\n`;
}

/** What a user changes so the service sees a new delivery: the part its replay key is made of. */
function howToSendAnew(keyedBy: ReplayKeyedBy): string {
  const act = 'to see this config act on it';
  if (keyedBy.by === 'idempotency-key') return `send it with another Idempotency-Key ${act}`;
  if (keyedBy.by === 'delivery-id') return `give it a new delivery id (${keyedBy.header === undefined ? "the payload's own id" : keyedBy.header}) ${act}`;
  if (keyedBy.timed) return `sign it again (the signed time is part of the key) or change the body ${act}`;
  return `change the body ${act} (a new delivery id is not enough: the signed body is the key)`;
}

/** Whether try has anything to read in the store: a rate limit (of a mapping or a preset), or a key this delivery may have been stored under. */
export function storeMayAnswer(hooks: Config['hooks'], headers: Record<string, string>): boolean {
  const entries = presetEntries(hooks.presets);
  if (hooks.mappings.some((mapping) => mapping.rateLimit !== undefined) || entries.some((entry) => entry.rateLimit !== undefined)) return true;
  const signedPreset = entries.some((entry) => PRESETS.find((preset) => preset.name === entry.name)?.scheme !== undefined);
  return headers['idempotency-key'] !== undefined || signedPreset || hooks.mappings.some((mapping) => mapping.signature !== undefined);
}
