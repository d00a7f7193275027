import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createRunQueue } from '../../src/runtime/run-queue.js';
import type { RunRow } from '../../src/store/runtime-repo.js';
import { agentAction, insertRun, tempStore, type TempStore } from './helpers.js';

describe('the run queue while another connection holds the write lock', () => {
  let store: TempStore | undefined;
  const extra: DatabaseSync[] = [];
  afterEach(() => {
    for (const db of extra.splice(0)) if (db.isOpen) db.close();
    store?.cleanup();
    store = undefined;
  });

  /**
   * The runtime's connection, counting the queue's tries to claim a run: a test waits for a number
   * of tries (each refused while the lock is held) instead of sleeping.
   */
  function countingClaims(db: DatabaseSync): { db: DatabaseSync; triedAtLeast(n: number): Promise<void> } {
    let tries = 0;
    const waiters: Array<{ n: number; resolve: () => void }> = [];
    const prepare = (sql: string) => {
      if (sql.startsWith("UPDATE runs SET status = 'running'")) {
        tries += 1;
        for (const waiter of waiters.filter((w) => w.n <= tries)) waiter.resolve();
      }
      return db.prepare(sql);
    };
    const counted = new Proxy(db, {
      get(target, property) {
        if (property === 'prepare') return prepare;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return {
      db: counted,
      triedAtLeast: (n) => (tries >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    };
  }

  function setUp() {
    store = tempStore();
    insertRun(store.db, agentAction(), 1000);
    const holder = new DatabaseSync(store.path);
    const runtime = new DatabaseSync(store.path, { timeout: 0 });
    extra.push(holder, runtime);
    const claims = countingClaims(runtime);
    const executed: RunRow[] = [];
    const queue = createRunQueue({ db: claims.db, maxConcurrent: 1, now: () => 2000, execute: async (row) => void executed.push(row), logger: silentLogger() });
    return { holder, runtime, executed, queue, claims };
  }

  const statusOf = (db: DatabaseSync): string => (db.prepare('SELECT status FROM runs').get() as { status: string }).status;

  it('claims and executes the run once the lock is free, without blocking meanwhile', async () => {
    const { holder, runtime, executed, queue, claims } = setUp();
    holder.exec('BEGIN IMMEDIATE');
    queue.start();
    queue.pump();
    queue.pump(); // listed again while its claim waits: it keeps its one slot
    await claims.triedAtLeast(3); // refused at least twice, and the event loop got here meanwhile
    expect(executed).toEqual([]);
    holder.exec('COMMIT');
    await Promise.all(queue.inFlight());
    expect(executed.map((row) => row.status)).toEqual(['running']);
    expect(statusOf(runtime)).toBe('running');
  });

  it('does not claim a run whose claim was still waiting when the queue stopped: it stays queued', async () => {
    const { holder, runtime, executed, queue, claims } = setUp();
    holder.exec('BEGIN IMMEDIATE');
    queue.start();
    queue.pump();
    await claims.triedAtLeast(1); // the claim was tried and refused: it is waiting for the lock
    queue.stop();
    holder.exec('COMMIT');
    await Promise.all(queue.inFlight());
    expect(executed).toEqual([]);
    expect(statusOf(runtime)).toBe('queued');
  });
});
