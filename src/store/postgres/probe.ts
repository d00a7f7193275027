import type pg from 'pg';

/** A probe older than this is refreshed (in the background) when someone asks. */
const PROBE_MAX_AGE_MS = 1000;

export interface WritableProbe {
  /** Cheap and synchronous: the last answer; asks for a fresh one when it is stale. */
  writable(): boolean;
  /** What a commit just learned (it succeeded, or the database failed it). */
  record(writable: boolean): void;
}

/**
 * Whether the database takes writes: reachable and not a read-only standby. Readiness and the
 * ingress ask it on every request, so it answers from memory and probes at most once a second.
 */
export function createWritableProbe(pool: pg.Pool): WritableProbe {
  const state = { writable: true, at: performance.now(), probing: false };
  const record = (writable: boolean): void => {
    state.writable = writable;
    state.at = performance.now();
  };
  const refresh = async (): Promise<void> => {
    state.probing = true;
    try {
      const { rows } = await pool.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      record(rows[0]?.standby === false);
    } catch {
      record(false);
    } finally {
      state.probing = false;
    }
  };
  return {
    writable() {
      if (!state.probing && performance.now() - state.at > PROBE_MAX_AGE_MS) void refresh();
      return state.writable;
    },
    record,
  };
}
