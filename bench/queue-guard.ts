/**
 * The cost of agents.defaults.maxQueued on the hot path (issue 36.3): the guard's answer for an
 * agent action while the queue is far from the limit, in-process, with a store whose count is
 * always at hand. Prints ns per call (median of 5 runs of 1,000,000 calls).
 *
 *   node --import tsx bench/queue-guard.ts
 */
import type { AdmittedAction } from '../src/actions/types.js';
import { createQueueGuard } from '../src/admission/max-queued.js';

const CALLS = 1_000_000;
const action = { kind: 'agent', runId: 'r', message: 'm', name: 'n', sessionKey: 'hook:x', wakeMode: 'now', deliver: false, channel: 'log', origin: { hook: 'agent' } } as AdmittedAction;
const actions = [action];
let now = 0;
const guard = createQueueGuard({ maxQueued: 1_000_000_000, depths: async () => ({ pendingEvents: 0, runs: { queued: 0, running: 0, debounced: 0 } }), now: () => now });

const runs: number[] = [];
for (let run = 0; run < 6; run += 1) {
  const started = process.hrtime.bigint();
  for (let call = 0; call < CALLS; call += 1) {
    now += 0.001; // a request every microsecond: the count is read again once a second
    await guard(actions, 'agent');
  }
  if (run > 0) runs.push(Number(process.hrtime.bigint() - started) / CALLS); // the first run warms up
}
runs.sort((a, b) => a - b);
console.log(`maxQueued guard, far from the limit: ${runs[2]?.toFixed(0)} ns per call (runs: ${runs.map((ns) => ns.toFixed(0)).join(', ')})`);
