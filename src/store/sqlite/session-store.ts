import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryStore, MainSessionStore, StateStore, TranscriptStore } from '../port.js';
import { inTransaction } from './connection.js';
import {
  closeAbandonedHeartbeats,
  countPendingEvents,
  finishHeartbeat,
  hasDueEvents,
  insertEvent,
  lastHeartbeat,
  listPendingEvents,
  newestPendingEventId,
  setHeartbeatDelivery,
  startHeartbeat,
} from './session-queries.js';
import { getState, insertDelivery, readLastRecipient, readLastRoute, readTranscript, rememberRoute, setState, claimState } from './state-queries.js';
import { pendingEventViews, recentHeartbeatViews } from './view-queries.js';
import { writeWhenFree } from './write-when-free.js';

/**
 * The main session on SQLite. One process owns the file, so the heartbeat lock is a flag of this
 * store object: the runtime's scheduler already runs one heartbeat at a time, this keeps the
 * promise the port makes to every adapter.
 */
export function createSqliteMainSession(db: DatabaseSync, reads: DatabaseSync): MainSessionStore {
  let heartbeatHeld = false;
  return {
    addEvent: (event) => writeWhenFree(() => insertEvent(db, event)),
    listPending: async (limit, maxChars) => listPendingEvents(db, limit, maxChars),
    countPending: async (createdUpTo) => countPendingEvents(reads, createdUpTo),
    newestPendingId: async () => newestPendingEventId(db),
    hasDue: async (dueUpTo) => hasDueEvents(db, dueUpTo),
    async withHeartbeatLock(fn) {
      if (heartbeatHeld) return { held: false };
      heartbeatHeld = true;
      try {
        return { held: true, value: await fn() };
      } finally {
        heartbeatHeld = false;
      }
    },
    startHeartbeat: (at, eventCount) => writeWhenFree(() => startHeartbeat(db, at, eventCount)),
    finishHeartbeat: (id, end) => writeWhenFree(() => inTransaction(db, () => finishHeartbeat(db, id, end))),
    setHeartbeatDelivery: (id, delivery) => writeWhenFree(() => setHeartbeatDelivery(db, id, delivery)),
    // Every heartbeat left running belongs to a previous process: this one has not started any yet.
    closeAbandonedHeartbeats: (at) => writeWhenFree(() => closeAbandonedHeartbeats(db, at)),
    lastHeartbeat: async () => lastHeartbeat(reads),
    recentHeartbeats: async (limit) => recentHeartbeatViews(reads, limit),
    pendingViews: async (limit, includeWakeText) => pendingEventViews(reads, limit, includeWakeText),
  };
}

export function createSqliteTranscripts(db: DatabaseSync): TranscriptStore {
  return { read: async (sessionKey, maxChars) => readTranscript(db, sessionKey, maxChars) };
}

export function createSqliteDeliveries(db: DatabaseSync): DeliveryStore {
  return {
    record: (record, remember) =>
      writeWhenFree(() =>
        inTransaction(db, () => {
          insertDelivery(db, record);
          if (remember !== undefined) rememberRoute(db, remember);
        }),
      ),
    lastRoute: async () => readLastRoute(db),
    lastRecipient: async (channel) => readLastRecipient(db, channel),
  };
}

export function createSqliteState(db: DatabaseSync): StateStore {
  return {
    get: async (key) => getState(db, key),
    set: (key, value) => writeWhenFree(() => setState(db, key, value)),
    claim: (key, value) => writeWhenFree(() => claimState(db, key, value)),
  };
}
