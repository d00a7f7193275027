import type { Action } from '../actions/types.js';
import type { RunKind } from './port-types.js';

/** The `runs` row a sealed action becomes, or undefined for a wake that is a main-session event. */
export interface NewRunRow {
  runId: string;
  hook: string;
  name: string;
  /** Empty for runs without a session (a notify, a forwarded wake). */
  sessionKey: string;
  kind: RunKind;
  action: string;
  /** A relay run's target (its consumers' queue); null for any other run. */
  relayTarget: string | null;
}

/** Both adapters write runs from actions through this, so they agree on what is a run and of which kind. */
export function runRowOf(action: Action): NewRunRow | undefined {
  if (action.kind === 'wake' && (action.forward === undefined || action.runId === undefined)) return undefined;
  const runId = action.runId as string;
  const forward = action.kind === 'notify' ? undefined : action.forward;
  const relayTarget = forward !== undefined && action.kind !== 'notify' && action.relay === true ? forward : null;
  const kind: RunKind = relayTarget !== null ? 'relay' : forward !== undefined ? 'forward' : action.kind === 'notify' ? 'notify' : 'agent';
  return {
    runId,
    hook: action.origin.hook,
    name: action.kind === 'wake' ? action.origin.hook : action.name,
    sessionKey: action.kind === 'agent' ? action.sessionKey : '',
    kind,
    action: JSON.stringify(action),
    relayTarget,
  };
}
