/**
 * The recent hook requests this process answered, for the console's Requests page and its
 * per-minute chart: a bounded ring in memory, not a table. The history is diagnostic, so it need
 * not survive a restart; writing it to the store would put one more write on every request,
 * refused ones included (a flood of bad tokens would then become a flood of disk writes).
 */

export interface RequestEntry {
  /** Sequence number in this process, increasing: the cursor of the Requests page. */
  seq: number;
  at: number;
  method: string;
  /** The hook name (sub-path after hooks.path), or `runs/…`; never the query string. */
  hook: string;
  status: number;
  /** The error code of a refused request. */
  code?: string;
  durationMs: number;
  idempotencyKey?: string;
  /** A provider's delivery id header (e.g. X-GitHub-Delivery), when the request carried one. */
  deliveryId?: string;
  replayed?: boolean;
  /** Passed over by every matching mapping: `event <type>` or `filter`. */
  skipped?: string;
  /** Its actions joined debounce groups (`actions` name the groups' run ids). */
  debounced?: boolean;
  mappingIds: string[];
  /** What the request produced: `wake:now`, `agent:<runId>`, … */
  actions: string[];
  /** Only with gateway.console.showPayloads, credentials removed (redact.ts). */
  payload?: unknown;
  headers?: Record<string, string>;
}

export interface MinuteBucket {
  /** Start of the minute, ms since epoch. */
  minute: number;
  accepted: number;
  /** Refused requests by error code. */
  refused: Record<string, number>;
}

export interface RequestLog {
  record(entry: Omit<RequestEntry, 'seq'>): void;
  /** Newest first, at most limit, only entries older than `before` (a seq) when given, matching the filter. */
  list(query: { limit: number; before?: number; hook?: string; status?: 'accepted' | 'refused' }): RequestEntry[];
  /** The last `minutes` minutes up to now, oldest first, empty minutes included. */
  perMinute(now: number, minutes: number): MinuteBucket[];
  /** Accepted and refused counts per mapping id and per hook name, over the kept entries. */
  counts(): { byMapping: Map<string, { hits: number; errors: number }>; byHook: Map<string, { hits: number; errors: number }> };
  /** The seq of the newest entry (0: none yet); the page polls and compares. */
  latestSeq(): number;
}

const MINUTE = 60_000;
const KEPT_MINUTES = 60;

export function createRequestLog(capacity: number): RequestLog {
  const ring: Array<RequestEntry | undefined> = new Array<RequestEntry | undefined>(capacity);
  let seq = 0;
  const minutes = new Map<number, MinuteBucket>();

  function bucketFor(at: number): MinuteBucket {
    const minute = Math.floor(at / MINUTE) * MINUTE;
    let bucket = minutes.get(minute);
    if (bucket === undefined) {
      bucket = { minute, accepted: 0, refused: {} };
      minutes.set(minute, bucket);
      for (const key of minutes.keys()) if (key < minute - KEPT_MINUTES * MINUTE) minutes.delete(key);
    }
    return bucket;
  }

  function* newestFirst(): Generator<RequestEntry> {
    for (let s = seq; s > 0 && s > seq - capacity; s -= 1) {
      const entry = ring[(s - 1) % capacity];
      if (entry !== undefined) yield entry;
    }
  }

  return {
    record(entry) {
      seq += 1;
      ring[(seq - 1) % capacity] = { ...entry, seq };
      const bucket = bucketFor(entry.at);
      if (entry.status < 400) bucket.accepted += 1;
      else bucket.refused[entry.code ?? String(entry.status)] = (bucket.refused[entry.code ?? String(entry.status)] ?? 0) + 1;
    },
    list({ limit, before, hook, status }) {
      const out: RequestEntry[] = [];
      for (const entry of newestFirst()) {
        if (out.length >= limit) break;
        if (before !== undefined && entry.seq >= before) continue;
        if (hook !== undefined && entry.hook !== hook) continue;
        if (status !== undefined && (entry.status < 400) !== (status === 'accepted')) continue;
        out.push(entry);
      }
      return out;
    },
    perMinute(now, count) {
      const last = Math.floor(now / MINUTE) * MINUTE;
      const out: MinuteBucket[] = [];
      for (let minute = last - (count - 1) * MINUTE; minute <= last; minute += MINUTE) {
        const bucket = minutes.get(minute);
        out.push(bucket === undefined ? { minute, accepted: 0, refused: {} } : { ...bucket, refused: { ...bucket.refused } });
      }
      return out;
    },
    counts() {
      const byMapping = new Map<string, { hits: number; errors: number }>();
      const byHook = new Map<string, { hits: number; errors: number }>();
      const bump = (map: typeof byMapping, key: string, failed: boolean) => {
        const count = map.get(key) ?? { hits: 0, errors: 0 };
        if (failed) count.errors += 1;
        else count.hits += 1;
        map.set(key, count);
      };
      for (const entry of newestFirst()) {
        const failed = entry.status >= 400;
        bump(byHook, entry.hook, failed);
        for (const id of entry.mappingIds) bump(byMapping, id, failed);
      }
      return { byMapping, byHook };
    },
    latestSeq: () => seq,
  };
}
