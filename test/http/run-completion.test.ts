import { describe, expect, it } from 'vitest';
import { waitForCompletion, type ReadCompletion } from '../../src/http/run-completion.js';
import type { RunCompletion } from '../../src/store/port-types.js';

/** A manual clock: each sleep advances it by the time asked, so no test waits on the wall clock. */
function manualClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** Answers the given statuses one read after another, then the last one forever. */
function reads(...answers: (RunCompletion | undefined)[]): ReadCompletion & { count: () => number } {
  let index = 0;
  const read = async () => answers[Math.min(index++, answers.length - 1)];
  return Object.assign(read, { count: () => index });
}

describe('waiting for a run to end (waitForCompletion)', () => {
  it('answers with the ended run and its reply once the store says it ended', async () => {
    const clock = manualClock();
    const read = reads({ status: 'queued' }, { status: 'running' }, { status: 'ok', reply: 'done' });
    const outcome = await waitForCompletion(read, 'r1', { boundMs: 10_000, signal: new AbortController().signal, ...clock });
    expect(outcome).toEqual({ status: 'ok', reply: 'done' });
    expect(read.count()).toBe(3);
    expect(clock.sleeps).toEqual([50, 100]); // reads back off: 50 ms, then twice as long each time
  });

  it('treats every end as an end: error, timeout and interrupted come back without a reply', async () => {
    for (const status of ['error', 'timeout', 'interrupted'] as const) {
      const clock = manualClock();
      expect(await waitForCompletion(reads({ status }), 'r', { boundMs: 1000, signal: new AbortController().signal, ...clock })).toEqual({ status });
    }
  });

  it('gives up at the bound, never sleeping past it, and reads at most every 500 ms', async () => {
    const clock = manualClock();
    const outcome = await waitForCompletion(reads({ status: 'running' }), 'r', { boundMs: 2000, signal: new AbortController().signal, ...clock });
    expect(outcome).toBeUndefined();
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(2000);
    expect(Math.max(...clock.sleeps)).toBe(500);
  });

  it('stops reading as soon as the client went away', async () => {
    const left = new AbortController();
    const clock = manualClock();
    const read = reads({ status: 'queued' });
    const outcome = await waitForCompletion(read, 'r', {
      boundMs: 60_000,
      signal: left.signal,
      now: clock.now,
      sleep: async (ms) => {
        await clock.sleep(ms);
        left.abort();
      },
    });
    expect(outcome).toBeUndefined();
    expect(read.count()).toBe(1);
  });

  it('keeps waiting while the run is not known yet (a debounced group that has not fired)', async () => {
    const clock = manualClock();
    const outcome = await waitForCompletion(reads(undefined, undefined, { status: 'ok', reply: 'late' }), 'r', { boundMs: 5000, signal: new AbortController().signal, ...clock });
    expect(outcome).toEqual({ status: 'ok', reply: 'late' });
  });
});
