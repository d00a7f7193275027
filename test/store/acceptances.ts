import { randomUUID } from 'node:crypto';
import type { AcceptedResponse, AgentAction, NotifyAction, WakeAction } from '../../src/actions/types.js';
import type { Acceptance } from '../../src/store/port.js';

/*
 * Actions and acceptances as the request handlers build them, for every store adapter's tests
 * (SQLite and PostgreSQL): plain data, no adapter imported here.
 */

export function wake(text: string): WakeAction {
  return { kind: 'wake', text, mode: 'next-heartbeat', origin: { hook: 'wake' } };
}

export function agent(message: string): AgentAction {
  const runId = randomUUID();
  return {
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
}

export function notify(text: string): NotifyAction {
  return { kind: 'notify', runId: randomUUID(), text, name: 'stripe', channel: 'telegram', to: '-1001', origin: { hook: 'stripe', mappingId: 'payments' } };
}

export function notifyAcceptance(text: string): Acceptance {
  const action = notify(text);
  return { actions: [action], response: { status: 200, body: { ok: true, runId: action.runId } } };
}

/** A wake request as the handlers build it, with an optional idempotency key and fingerprint. */
export function wakeAcceptance(text: string, key?: string, fingerprint = `fp:${text}`): Acceptance {
  const response: AcceptedResponse = { status: 200, body: { ok: true, mode: 'next-heartbeat' } };
  return { actions: [wake(text)], response, ...(key === undefined ? {} : { idempotency: { key, fingerprint } }) };
}

export function agentAcceptance(message: string, key?: string): Acceptance {
  const action = agent(message);
  const response: AcceptedResponse = { status: 202, body: { ok: true, runId: action.runId } };
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

/** The response an outcome carries; fails the test when the store refused it by rate limit instead. */
export function responseOf(outcome: { kind: string; response?: AcceptedResponse }): AcceptedResponse {
  if (outcome.response === undefined) throw new Error(`expected a response, the store answered ${outcome.kind}`);
  return outcome.response;
}
