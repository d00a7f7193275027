import * as crypto from 'node:crypto';

/**
 * A new id for a row that is an index key (a run id, a default session key): a UUIDv7, whose first
 * 48 bits are the time in milliseconds. New keys then land at the right edge of their index
 * instead of on a random page, so a commit writes fewer pages and an index larger than SQLite's
 * page cache does not turn each insert into a read. 74 bits stay random; ids are never a credential
 * (every lookup needs the hook token). Node 24 before 24.16 has no randomUUIDv7: those get a
 * random (v4) id, which works the same apart from the index locality.
 */
export const newTimeOrderedId: () => string =
  typeof crypto.randomUUIDv7 === 'function' ? () => crypto.randomUUIDv7() : () => crypto.randomUUID();
