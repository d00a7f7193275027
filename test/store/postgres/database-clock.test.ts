import { describe, expect, it } from 'vitest';
import { createDatabaseClock } from '../../../src/store/postgres/database-clock.js';

/**
 * The database clock with a scripted database and monotonic clock: each read of the database
 * takes `roundTrips[i]` ms of monotonic time and answers the database's time at the middle of it.
 */
function scripted(databaseAtMonotonicZero: number, roundTrips: number[]) {
  let monotonic = 1000;
  let reads = 0;
  return {
    advance: (ms: number) => void (monotonic += ms),
    deps: {
      monotonic: () => monotonic,
      async readDatabaseTime() {
        const roundTrip = roundTrips[reads % roundTrips.length] as number;
        reads += 1;
        monotonic += roundTrip / 2;
        const answer = databaseAtMonotonicZero + monotonic;
        monotonic += roundTrip / 2;
        return answer;
      },
    },
  };
}

describe('the PostgreSQL store clock', () => {
  it("goes by the database's time advanced by the monotonic clock, in whole ms, from the read with the shortest round trip", async () => {
    const db = scripted(1_750_000_000_000, [40, 4, 90]);
    const clock = createDatabaseClock(db.deps);
    await clock.start();
    const first = clock.now();
    expect(Number.isInteger(first)).toBe(true);
    db.advance(1234.4);
    expect(clock.now()).toBe(first + 1234);
    clock.stop();
  });

  it('agrees between two instances however far apart their own clocks are: it never reads them', async () => {
    const behind = createDatabaseClock(scripted(1_750_000_000_000, [2]).deps);
    const ahead = createDatabaseClock(scripted(1_750_000_000_000, [2]).deps);
    const realNow = Date.now;
    await behind.start();
    Date.now = () => realNow() + 5000; // the other instance's wall clock, 5 s ahead
    try {
      await ahead.start();
      expect(ahead.now()).toBe(behind.now());
    } finally {
      Date.now = realNow;
      behind.stop();
      ahead.stop();
    }
  });

  it('never goes backwards when a later reading puts the time a little earlier', async () => {
    let offset = 0;
    const db = scripted(1_750_000_000_000, [2]);
    const clock = createDatabaseClock({ ...db.deps, readDatabaseTime: async () => (await db.deps.readDatabaseTime()) - offset });
    await clock.start();
    const before = clock.now();
    offset = 30;
    await clock.start(); // a resync
    expect(clock.now()).toBe(before);
    db.advance(31);
    expect(clock.now()).toBeGreaterThan(before);
    clock.stop();
  });

  it('refuses to tell the time before it read it once', () => {
    expect(() => createDatabaseClock(scripted(0, [1]).deps).now()).toThrow('never read');
  });
});
