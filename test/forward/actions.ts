import type { AgentAction, WakeAction } from '../../src/actions/types.js';
import { sealAction } from '../../src/actions/seal.js';
import type { ForwardedAction } from '../../src/forward/types.js';

/** A forwarded agent action as the store keeps it: sealed (its message in Hookgate's envelope). */
export function sealedAgent(message: string, fields: Partial<AgentAction> = {}): ForwardedAction & AgentAction {
  const admitted = {
    kind: 'agent' as const,
    runId: '0195f0a0-0000-7000-8000-000000000001',
    message,
    name: 'GitHub',
    sessionKey: 'hook:0195f0a0-0000-7000-8000-0000000000aa',
    wakeMode: 'now' as const,
    deliver: false,
    channel: 'last',
    origin: { hook: 'github', mappingId: 'preset:github/issues', scheme: 'github', verified: true, deliveryId: 'gh-delivery-1', receivedAt: '2026-01-01T00:00:00.000Z' },
    forward: 'home',
    untrusted: true as const,
    ...fields,
  };
  return sealAction({ ...admitted, envelope: { source: 'Webhook', task: admitted.name } }).action as ForwardedAction & AgentAction;
}

export function sealedWake(text: string): ForwardedAction & WakeAction {
  const admitted = { kind: 'wake' as const, runId: '0195f0a0-0000-7000-8000-000000000002', text, mode: 'now' as const, origin: { hook: 'ci', mappingId: 'ci' }, forward: 'home', untrusted: true as const };
  return sealAction({ ...admitted, envelope: { source: 'Webhook' } }).action as ForwardedAction & WakeAction;
}
