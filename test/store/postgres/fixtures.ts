import { randomUUID } from 'node:crypto';
import type { AcceptedResponse, AgentAction, WakeAction } from '../../../src/actions/types.js';
import type { Acceptance } from '../../../src/store/port.js';

/** Acceptances as the request handlers build them, for the PostgreSQL adapter's tests. */

export function wakeAcceptance(text: string, key?: string, fingerprint = `fp:${text}`): Acceptance {
  const action: WakeAction = { kind: 'wake', text, mode: 'next-heartbeat', origin: { hook: 'wake' } };
  const response: AcceptedResponse = { status: 200, body: { ok: true, mode: 'next-heartbeat' } };
  return { actions: [action], response, ...(key === undefined ? {} : { idempotency: { key, fingerprint } }) };
}

export function agentAcceptance(message: string, key?: string): Acceptance {
  const runId = randomUUID();
  const action: AgentAction = {
    kind: 'agent',
    runId,
    message,
    name: 'Test',
    sessionKey: `hook:${runId}`,
    wakeMode: 'next-heartbeat',
    deliver: false,
    channel: 'last',
    origin: { hook: 'agent' },
  };
  const response: AcceptedResponse = { status: 202, body: { ok: true, runId } };
  return { actions: [action], response, ...(key === undefined ? {} : { idempotency: { key, fingerprint: `fp:${message}` } }) };
}

/** The rejection of a promise (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
