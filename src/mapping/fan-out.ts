import { HookError } from '../errors.js';
import { safeList, withField, type SafeRecord } from './context.js';

/** Most items one request may fan out to; the rest are dropped (and logged). */
export const FAN_OUT_LIMIT = 200;

export interface FanOutItem {
  /** Position in the forEach array; undefined without forEach. */
  index: number | undefined;
  /** What a transform receives (plain JSON). */
  payload: Record<string, unknown>;
  /** What templates read. */
  safePayload: SafeRecord;
}

export interface FanOut {
  items: FanOutItem[];
  dropped: number;
}

/**
 * Without forEach: the payload itself. With forEach: one item per array element, each seeing
 * the payload with that array replaced by a one-element array, so `{{messages[0].subject}}`
 * addresses the current item. Missing, null or empty → no items.
 */
export function splitItems(mappingId: string, field: string | undefined, payload: Record<string, unknown>, safePayload: SafeRecord): FanOut {
  if (field === undefined) return { items: [{ index: undefined, payload, safePayload }], dropped: 0 };
  const raw = Object.hasOwn(payload, field) ? payload[field] : undefined;
  if (raw === undefined || raw === null) return { items: [], dropped: 0 };
  const safe = safePayload[field];
  if (!Array.isArray(raw) || !Array.isArray(safe)) {
    throw new HookError('MAPPING_INVALID', `hook mapping "${mappingId}" expects "${field}" to be an array`);
  }
  const kept = Math.min(raw.length, FAN_OUT_LIMIT);
  const items: FanOutItem[] = [];
  for (let index = 0; index < kept; index += 1) {
    items.push({
      index,
      payload: { ...payload, [field]: [raw[index]] },
      safePayload: withField(safePayload, field, safeList([safe[index]])),
    });
  }
  return { items, dropped: raw.length - kept };
}
