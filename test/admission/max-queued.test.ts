import { describe, expect, it } from 'vitest';
import type { AdmittedAction } from '../../src/actions/types.js';
import { createQueueGuard, QUEUE_COUNT_FRESH_MS } from '../../src/admission/max-queued.js';

const agent = (mappingId?: string): AdmittedAction =>
  ({ kind: 'agent', runId: 'r', message: 'm', name: 'n', sessionKey: 'hook:x', wakeMode: 'now', deliver: false, channel: 'log', origin: { hook: 'h', ...(mappingId === undefined ? {} : { mappingId }) } }) as AdmittedAction;
const wake: AdmittedAction = { kind: 'wake', text: 't', mode: 'now', origin: { hook: 'wake' } };

describe('agents.defaults.maxQueued', () => {
  it('refuses runs past the queued count read from the store plus those admitted since, and reads it again once stale', async () => {
    let queued = 8;
    let reads = 0;
    let now = 0;
    const refused: string[] = [];
    const guard = createQueueGuard({
      maxQueued: 10,
      depths: async () => {
        reads += 1;
        return { pendingEvents: 0, runs: { queued, running: 0 } };
      },
      now: () => now,
      onRefused: (label) => void refused.push(label),
    });
    await guard([agent()], 'agent');
    await guard([agent('gh')], 'gh');
    const error = await guard([agent('gh')], 'gh').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'SERVER_BUSY', status: 503, retryAfterSeconds: 30 });
    expect(refused).toEqual(['gh']);
    await guard([wake], 'wake'); // wakes never count
    expect(reads).toBe(1);
    queued = 2;
    now += QUEUE_COUNT_FRESH_MS;
    await guard([wake], 'wake');
    await expect(guard([agent()], 'agent')).rejects.toMatchObject({ code: 'SERVER_BUSY' }); // the stale count answers while the new one is read
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(2);
    await guard([agent(), agent()], 'agent');
  });

  it('refuses with STORE_UNAVAILABLE and Retry-After while the store cannot give a first count, then counts once it can', async () => {
    let broken = true;
    const guard = createQueueGuard({
      maxQueued: 10,
      depths: async () => {
        if (broken) throw new Error('database is locked');
        return { pendingEvents: 0, runs: { queued: 0, running: 0 } };
      },
      now: () => 0,
    });
    await expect(guard([agent()], 'agent')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503, retryAfterSeconds: 30 });
    broken = false;
    await expect(guard([agent()], 'agent')).resolves.toBeUndefined();
  });
});
