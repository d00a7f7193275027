import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import { burnCpu, type CpuBurner } from '../../helpers/cpu-burner.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/** Rounds of the two-holder scenario, all in one test. */
const ROUNDS = 200;

/** Counts the times a holder's fn started while another holder's fn was still running. */
function overlapWatch() {
  let inside = 0;
  let overlaps = 0;
  return {
    async hold<T>(fn: () => Promise<T>): Promise<T> {
      inside += 1;
      if (inside > 1) overlaps += 1;
      try {
        return await fn();
      } finally {
        inside -= 1;
      }
    },
    overlaps: () => overlaps,
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * The heartbeat lock of two instances (two pools) on one schema, with busy loops in other
 * processes taking the CPU from this one and from the database: a holder is starved of time
 * slices while the other instance asks for the lock.
 */
describe('the PostgreSQL heartbeat lock while other processes keep the CPU busy', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const stores: PostgresStore[] = [];
  let burner: CpuBurner | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    try {
      await burner?.stop();
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await database.drop();
    }
  });

  it(`lets one holder run at a time over ${ROUNDS} rounds, and leaves no lock behind`, async () => {
    const settings = { url: database.url, pool: 4, schema: 'heartbeat_load' };
    const options = { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service' as const };
    stores.push(await openPostgresStore(settings, options), await openPostgresStore(settings, options));
    const [a, b] = stores as [PostgresStore, PostgresStore];
    burner = burnCpu();
    const watch = overlapWatch();
    let refused = 0;
    let takenOverAfterRelease = 0;
    let roundsWithoutWinner = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      // Once a's fn runs, a second caller on either instance is refused until it settles.
      const entered = deferred();
      const gate = deferred();
      const holding = a.session.withHeartbeatLock(() => watch.hold(() => (entered.resolve(), gate.promise.then(() => 'a'))));
      await entered.promise;
      const intruders = await Promise.all([a, b].map((store) => store.session.withHeartbeatLock(() => watch.hold(async () => 'intruder'))));
      refused += intruders.filter((outcome) => !outcome.held).length;
      gate.resolve();
      expect(await holding).toEqual({ held: true, value: 'a' });
      // Released means released for every instance, not only on the connection a holds it with.
      if ((await b.session.withHeartbeatLock(() => watch.hold(async () => 'b'))).held) takenOverAfterRelease += 1;

      // Both ask at once, each holding across a database round trip: either may win, never both at once.
      const raced = await Promise.all([a, b].map((store) => store.session.withHeartbeatLock(() => watch.hold(() => store.pool.query('SELECT 1')))));
      if (!raced.some((outcome) => outcome.held)) roundsWithoutWinner += 1;
    }
    expect({ overlaps: watch.overlaps(), refused, takenOverAfterRelease, roundsWithoutWinner }).toEqual({
      overlaps: 0,
      refused: 2 * ROUNDS,
      takenOverAfterRelease: ROUNDS,
      roundsWithoutWinner: 0,
    });
    // No connection went back to a pool still holding the lock: the server lists none granted.
    const { rows } = await b.pool.query<{ n: number }>(
      `SELECT COUNT(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(rows[0]?.n).toBe(0);
  });
});
