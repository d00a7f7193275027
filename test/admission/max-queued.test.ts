import { describe, expect, it } from 'vitest';
import type { AdmittedAction } from '../../src/actions/types.js';
import { createQueueGuard, QUEUE_COUNT_FRESH_MS, REFUSAL_COUNT_FRESH_MS, type QueueGuardOptions } from '../../src/admission/max-queued.js';
import type { DebounceJoin } from '../../src/store/debounce-port.js';

const agent = (mappingId?: string): AdmittedAction =>
  ({ kind: 'agent', runId: 'r', message: 'm', name: 'n', sessionKey: 'hook:x', wakeMode: 'now', deliver: false, channel: 'log', origin: { hook: 'h', ...(mappingId === undefined ? {} : { mappingId }) } }) as AdmittedAction;
const wake: AdmittedAction = { kind: 'wake', text: 't', mode: 'now', origin: { hook: 'wake' } };
const joinOf = (action: AdmittedAction, key: string): DebounceJoin => ({ mappingId: 'gh', key, action, windowMs: 60_000, maxWaitMs: 600_000, keep: 'last', maxChars: 20_000, maxDeliveries: 1000, maxBytes: 1 << 24 });

/** A store whose counts the test sets: runs queued now and pending debounce groups of runs. */
function fakeStore(): { queued: number; debounced: number; openKeys: Set<string>; reads: number; options: Pick<QueueGuardOptions, 'depths' | 'joinsOpenGroup'> } {
  const store = {
    queued: 0,
    debounced: 0,
    openKeys: new Set<string>(),
    reads: 0,
    options: {
      depths: async () => {
        store.reads += 1;
        return { pendingEvents: 0, runs: { queued: store.queued, running: 0, debounced: store.debounced } };
      },
      joinsOpenGroup: async (joins: readonly DebounceJoin[]) => joins.map((join) => store.openKeys.has(join.key)),
    },
  };
  return store;
}

const refusal = (promise: Promise<void>): Promise<unknown> => promise.then(() => undefined, (error: unknown) => error);

describe('agents.defaults.maxQueued', () => {
  it('admits while the count read from the store plus what this process admitted since stays within the limit, reading the store at most once a second', async () => {
    const store = fakeStore();
    store.queued = 7;
    let now = 0;
    const guard = createQueueGuard({ maxQueued: 10, ...store.options, now: () => now });
    await guard([agent()], 'agent');
    await guard([agent('gh')], 'gh');
    await guard([wake], 'wake'); // wakes never count
    await guard([agent()], 'agent');
    expect(store.reads).toBe(1);
    now += QUEUE_COUNT_FRESH_MS;
    await guard([wake], 'wake');
    await guard([agent()], 'agent'); // 7 + 3 + 1 > 10 by the old count: read again, 7 are queued
    expect(store.reads).toBe(2);
  });

  it('admits a burst once the runs of the previous one ended: a refusal is decided on a count read for it, not on one that only grew', async () => {
    const store = fakeStore();
    let now = 0;
    const refused: string[] = [];
    const guard = createQueueGuard({ maxQueued: 3, ...store.options, now: () => now, onRefused: (label) => void refused.push(label) });
    for (let burst = 0; burst < 6; burst += 1) {
      for (let run = 0; run < 3; run += 1) {
        await guard([agent('gh')], 'gh');
        store.queued += 1; // committed
      }
      store.queued = 0; // each run ended within milliseconds
      now += burst % 2 === 0 ? 2500 : 400;
    }
    expect(refused).toEqual([]);
  });

  it('refuses with 503 SERVER_BUSY and Retry-After, giving the count it saw, not the limit', async () => {
    const store = fakeStore();
    store.queued = 4;
    store.debounced = 2;
    const refused: string[] = [];
    const guard = createQueueGuard({ maxQueued: 5, ...store.options, now: () => 0, onRefused: (label) => void refused.push(label) });
    const error = await refusal(guard([agent('gh')], 'gh'));
    expect(error).toMatchObject({ code: 'SERVER_BUSY', status: 503, retryAfterSeconds: 30 });
    expect((error as Error).message).toBe('6 runs are queued or waiting in debounce groups (agents.defaults.maxQueued is 5); retry later');
    expect(refused).toEqual(['gh']);
    await guard([wake], 'wake');
  });

  it('decides every request near the limit within a tenth of a second on one read of the store', async () => {
    const store = fakeStore();
    store.queued = 10;
    let now = 0;
    const guard = createQueueGuard({ maxQueued: 10, ...store.options, now: () => now });
    const errors = await Promise.all(Array.from({ length: 20 }, () => refusal(guard([agent()], 'agent'))));
    expect(errors.every((error) => (error as { code?: string }).code === 'SERVER_BUSY')).toBe(true);
    now += 99;
    await expect(guard([agent()], 'agent')).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(store.reads).toBe(1);
    store.queued = 9;
    now += 2;
    await guard([agent()], 'agent');
    expect(store.reads).toBe(2);
  });

  it('decides on a read started for the request even when reading takes longer than a tenth of a second', async () => {
    let now = 0;
    let reads = 0;
    const guard = createQueueGuard({
      maxQueued: 1,
      depths: async () => {
        reads += 1;
        now += 500; // a slow store: the clock moves while it counts
        return { pendingEvents: 0, runs: { queued: 1, running: 0, debounced: 0 } };
      },
      now: () => now,
    });
    // The first read is half a second old when it answers: read once more, then decided.
    await expect(guard([agent()], 'agent')).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(reads).toBe(2);
  });

  it('counts a pending debounce group as a run: at the limit a delivery that would open a group is refused, one joining an open group is admitted', async () => {
    const store = fakeStore();
    store.queued = 1;
    store.debounced = 2;
    store.openKeys.add('repo#1');
    let now = 0;
    const guard = createQueueGuard({ maxQueued: 3, ...store.options, now: () => now });
    const opening = agent('gh');
    await expect(guard([opening], 'gh', [joinOf(opening, 'repo#2')])).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    const joining = agent('gh');
    await guard([joining], 'gh', [joinOf(joining, 'repo#1')]);
    await guard([joining], 'gh', [joinOf(joining, 'repo#1')]);
    // A debounced wake becomes an event, never a run.
    await guard([wake], 'gh', [joinOf(wake, 'repo#3')]);
    store.debounced = 1; // a group fired and its run ended
    now += REFUSAL_COUNT_FRESH_MS + 1;
    await guard([opening], 'gh', [joinOf(opening, 'repo#2')]);
  });

  it('refuses with STORE_UNAVAILABLE and Retry-After while the store cannot count, then counts once it can', async () => {
    let broken = true;
    const guard = createQueueGuard({
      maxQueued: 10,
      depths: async () => {
        if (broken) throw new Error('database is locked');
        return { pendingEvents: 0, runs: { queued: 0, running: 0, debounced: 0 } };
      },
      now: () => 0,
    });
    await expect(guard([agent()], 'agent')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503, retryAfterSeconds: 30 });
    broken = false;
    await expect(guard([agent()], 'agent')).resolves.toBeUndefined();
  });
});
