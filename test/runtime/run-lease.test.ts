import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createRunQueue, DEFAULT_LEASE_MS } from '../../src/runtime/run-queue.js';
import type { RunClaim, Store } from '../../src/store/port.js';
import { createManualClock } from '../helpers/manual-clock.js';
import { agentAction, insertRun, portOn, tempStore, turn, type TempStore } from './helpers.js';

let store: TempStore;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

/** The real store, with the claims and renewals the queue asks for written down. */
function recording(port: Store): { runs: Store['runs']; claims: RunClaim[]; renewals: Array<{ owner: string; leaseUntil: number }> } {
  const claims: RunClaim[] = [];
  const renewals: Array<{ owner: string; leaseUntil: number }> = [];
  const runs: Store['runs'] = {
    ...port.runs,
    claim: (runId, claim) => (claims.push(claim), port.runs.claim(runId, claim)),
    renewLease: (runId, owner, leaseUntil) => (renewals.push({ owner, leaseUntil }), port.runs.renewLease(runId, owner, leaseUntil)),
  };
  return { runs, claims, renewals };
}

describe('run leases', () => {
  it('claims under its owner and a lease, renews it every third of the lease while the run executes, and stops after', async () => {
    const clock = createManualClock(1_000_000);
    const port = portOn(store.db);
    const spy = recording(port);
    const action = insertRun(store.db, agentAction(), clock.now());
    let finish!: () => void;
    const executing = new Promise<void>((resolve) => (finish = resolve));
    const queue = createRunQueue({
      store: { ...port, runs: spy.runs },
      owner: 'instance-a',
      maxConcurrent: 1,
      clock,
      execute: () => executing,
      logger: silentLogger(),
    });
    queue.start();
    queue.pump();
    await turn(clock);
    expect(spy.claims).toEqual([{ owner: 'instance-a', at: 1_000_000, leaseUntil: 1_000_000 + DEFAULT_LEASE_MS, signal: expect.any(AbortSignal) }]);
    clock.advance(DEFAULT_LEASE_MS / 3);
    clock.advance(DEFAULT_LEASE_MS / 3);
    expect(spy.renewals).toEqual([
      { owner: 'instance-a', leaseUntil: 1_000_000 + (DEFAULT_LEASE_MS * 4) / 3 },
      { owner: 'instance-a', leaseUntil: 1_000_000 + (DEFAULT_LEASE_MS * 5) / 3 },
    ]);
    finish();
    await Promise.all(queue.inFlight());
    clock.advance(DEFAULT_LEASE_MS);
    expect(spy.renewals).toHaveLength(2);
    expect(clock.pendingTimers()).toBe(0);
    expect((await port.runs.view(action.runId))?.status).toBe('running'); // execute() records the end; this one did not
  });
});
