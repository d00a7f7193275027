import { describe, expect, it } from 'vitest';
import { createRequestLog } from '../../src/console/request-log.js';

const entry = (at: number, status: number, hook = 'gh', extra: Record<string, unknown> = {}) => ({
  at,
  method: 'POST',
  hook,
  status,
  durationMs: 1,
  mappingIds: status < 400 ? ['m1'] : [],
  actions: [],
  ...(status >= 400 ? { code: status === 401 ? 'UNAUTHORIZED' : 'INVALID_BODY' } : {}),
  ...extra,
});

describe('the console request log', () => {
  it('keeps only the newest `capacity` entries, newest first, and pages with a seq cursor', () => {
    const log = createRequestLog(3);
    for (let i = 1; i <= 5; i += 1) log.record(entry(i * 1000, 202));
    expect(log.list({ limit: 10 }).map((e) => e.seq)).toEqual([5, 4, 3]);
    expect(log.list({ limit: 2, before: 5 }).map((e) => e.seq)).toEqual([4, 3]);
    expect(log.latestSeq()).toBe(5);
  });

  it('filters by hook and by outcome', () => {
    const log = createRequestLog(10);
    log.record(entry(0, 202, 'a'));
    log.record(entry(0, 401, 'a'));
    log.record(entry(0, 202, 'b'));
    expect(log.list({ limit: 10, hook: 'a' }).map((e) => e.status)).toEqual([401, 202]);
    expect(log.list({ limit: 10, status: 'refused' }).map((e) => e.hook)).toEqual(['a']);
    expect(log.list({ limit: 10, status: 'accepted' }).map((e) => e.hook)).toEqual(['b', 'a']);
  });

  it('counts per minute, refused by code, with empty minutes filled in', () => {
    const log = createRequestLog(10);
    const minute = 60_000;
    log.record(entry(10 * minute + 5, 202));
    log.record(entry(10 * minute + 6, 401));
    log.record(entry(12 * minute, 400));
    const buckets = log.perMinute(12 * minute + 30_000, 3);
    expect(buckets).toEqual([
      { minute: 10 * minute, accepted: 1, refused: { UNAUTHORIZED: 1 } },
      { minute: 11 * minute, accepted: 0, refused: {} },
      { minute: 12 * minute, accepted: 0, refused: { INVALID_BODY: 1 } },
    ]);
  });

  it('counts hits per mapping and errors per hook over the kept entries', () => {
    const log = createRequestLog(10);
    log.record(entry(0, 202, 'gh'));
    log.record(entry(0, 202, 'gh'));
    log.record(entry(0, 500, 'gh'));
    const counts = log.counts();
    expect(counts.byMapping.get('m1')).toEqual({ hits: 2, errors: 0 });
    expect(counts.byHook.get('gh')).toEqual({ hits: 2, errors: 1 });
  });
});
