import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createRunQueue } from '../../src/runtime/run-queue.js';
import type { RunRow } from '../../src/store/port.js';
import { until } from '../helpers/wait.js';
import { createManualClock } from '../helpers/manual-clock.js';
import { agentAction, insertRun, portOn, tempStore, type TempStore } from './helpers.js';

describe('the run queue while another connection holds the write lock', () => {
  let store: TempStore | undefined;
  const extra: DatabaseSync[] = [];
  afterEach(() => {
    for (const db of extra.splice(0)) if (db.isOpen) db.close();
    store?.cleanup();
    store = undefined;
  });

  function setUp(): { holder: DatabaseSync; runtime: DatabaseSync; executed: RunRow[]; queue: ReturnType<typeof createRunQueue> } {
    store = tempStore();
    insertRun(store.db, agentAction(), 1000);
    const holder = new DatabaseSync(store.path);
    const runtime = new DatabaseSync(store.path, { timeout: 0 });
    extra.push(holder, runtime);
    const executed: RunRow[] = [];
    const queue = createRunQueue({
      store: portOn(store.db),
      owner: 'test',
      maxConcurrent: 1,
      clock: createManualClock(2000),
      execute: async (row) => void executed.push(row),
      logger: silentLogger(),
    });
    return { holder, runtime, executed, queue };
  }

  const statusOf = (db: DatabaseSync): string => (db.prepare('SELECT status FROM runs').get() as { status: string }).status;

  it('claims and executes the run once the lock is free, without blocking meanwhile', async () => {
    const { holder, runtime, executed, queue } = setUp();
    holder.exec('BEGIN IMMEDIATE');
    queue.start();
    queue.pump();
    queue.pump(); // listed again while its claim waits: it keeps its one slot
    await until(() => queue.inFlight().length === 1); // its claim is waiting for the lock
    // Turns of the event loop in which a claim that ignored the lock would have executed the run.
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(executed).toEqual([]);
    holder.exec('COMMIT');
    await Promise.all(queue.inFlight());
    expect(executed.map((row) => row.status)).toEqual(['running']);
    expect(statusOf(runtime)).toBe('running');
  });

  it('does not claim a run whose claim was still waiting when the queue stopped: it stays queued', async () => {
    const { holder, runtime, executed, queue } = setUp();
    holder.exec('BEGIN IMMEDIATE');
    queue.start();
    queue.pump();
    await until(() => queue.inFlight().length === 1); // its claim is waiting for the lock
    queue.stop();
    holder.exec('COMMIT');
    await Promise.all(queue.inFlight());
    expect(executed).toEqual([]);
    expect(statusOf(runtime)).toBe('queued');
  });
});
