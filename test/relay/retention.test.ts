import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentAction } from '../../src/actions/types.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createRelayRetention, parseDrops, relayDropKey } from '../../src/relay/retention.js';
import type { Store } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { agent } from '../store/acceptances.js';
import { createManualClock } from '../helpers/manual-clock.js';

const HOUR = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-relay-retention-'));
  const clock = createManualClock();
  const store = openSqliteStore({ path: join(dir, 'hookgate.sqlite'), synchronous: 'normal' }, { logger: createLogger({ level: 'silent' }), idempotencyTtlMs: HOUR, role: 'service', now: clock.now });
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
  const metrics = createMetrics({ processMetrics: false });
  const targets = new Map([['laptop', { tokens: ['t'.repeat(16)], retentionMs: 2 * HOUR, leaseMs: 60_000 }]]);
  const retention = createRelayRetention({ store, targets, clock, logger, observer: metrics.relay, everyMs: HOUR });
  cleanups.push(() => retention.stop());
  return { store, clock, retention, metrics, logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

async function hold(store: Store, message: string, extra: Partial<AgentAction> = {}): Promise<AgentAction> {
  const action: AgentAction = { ...agent(message), forward: 'laptop', relay: true, ...extra };
  await store.ingress.accept({ actions: [action], response: { status: 202, body: { ok: true, runId: action.runId } } });
  return action;
}

describe('relay retention', () => {
  it('drops the events nobody acknowledged within retentionHours, each with its callback, a log line, a metric and a note; younger ones stay', async () => {
    const { store, clock, retention, metrics, logs } = setUp();
    const old = await hold(store, 'old', { callback: 'inbox' });
    const leased = await hold(store, 'leased');
    await store.relay.lease({ target: 'laptop', consumer: 'a', max: 1, at: clock.now(), leaseUntil: clock.now() + 3 * HOUR });
    clock.advance(HOUR);
    const young = await hold(store, 'young');
    retention.start();
    expect(await retention.sweep()).toBe(0);
    clock.advance(HOUR + 1);
    expect(await retention.sweep()).toBe(2);
    for (const runId of [old.runId, leased.runId]) {
      expect(await store.runs.view(runId)).toMatchObject({ status: 'error', kind: 'relay', error: 'dropped: not acknowledged within 2 h (targets.laptop.retentionHours)' });
    }
    expect(await store.runs.view(young.runId)).toMatchObject({ status: 'queued', waitingFor: 'consumer' });
    const [callback] = await store.runs.listQueued(10);
    expect(JSON.parse(callback?.action ?? '{}')).toMatchObject({ kind: 'callback', target: 'inbox', document: { type: 'hookgate.run.finished.v1', runId: old.runId, status: 'error' } });
    expect(logs().filter((line) => line['event'] === 'relay.dropped')).toEqual([expect.objectContaining({ target: 'laptop', count: 2 })]);
    expect(await metrics.render()).toContain('hookgate_relay_events_dropped_total{target="laptop"} 2');
    expect(parseDrops(await store.state.get(relayDropKey('laptop')))).toEqual({ count: 2, lastAt: new Date(clock.now()).toISOString(), lastCount: 2 });
    expect(await store.relay.acknowledge({ target: 'laptop', consumer: 'a', at: clock.now(), acks: [{ id: leased.runId, taken: true }] }, () => {
      throw new Error('a dropped event is not ended again');
    })).toEqual(['ended']);
  });

  it('sweeps at start and then on its own timer, never before an event is retentionHours old, adding each drop to the note', async () => {
    const { store, clock, retention } = setUp();
    const drops = async () => parseDrops(await store.state.get(relayDropKey('laptop')));
    await hold(store, 'first');
    clock.advance(2 * HOUR + 1);
    retention.start();
    await until(async () => (await drops())?.count === 1);
    await hold(store, 'second');
    /** Lets the armed sweep run an hour later and waits until it is done (the next one is armed). */
    const nextSweep = async (): Promise<void> => {
      await until(async () => clock.pendingTimers() === 1);
      clock.advance(HOUR);
      await until(async () => clock.pendingTimers() === 1);
    };
    await nextSweep();
    await nextSweep();
    expect(await drops()).toMatchObject({ count: 1 });
    await nextSweep();
    expect(await drops()).toMatchObject({ count: 2, lastCount: 1 });
  });
});

/** Yields to the store's writes until check holds (the sweep runs on the manual clock's timer). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await check()); tries += 1) {
    if (tries > 1000) throw new Error('condition not met');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
