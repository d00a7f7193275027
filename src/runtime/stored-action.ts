import type { AgentAction, NotifyAction } from '../actions/types.js';
import type { RunRow } from '../store/port.js';

type StoredKinds = { agent: AgentAction; notify: NotifyAction };
/** The field each kind's runtime reads first: a row without it as a string is not that kind's action. */
const REQUIRED_TEXT: { [K in keyof StoredKinds]: 'message' | 'text' } = { agent: 'message', notify: 'text' };

/** A run row's stored action of the expected kind; undefined when the row cannot be read as one (never expected). */
export function parseStoredAction<K extends keyof StoredKinds>(row: Pick<RunRow, 'action'>, kind: K): StoredKinds[K] | undefined {
  try {
    const action = JSON.parse(row.action) as Record<string, unknown> | null;
    return action?.['kind'] === kind && typeof action[REQUIRED_TEXT[kind]] === 'string' ? (action as unknown as StoredKinds[K]) : undefined;
  } catch {
    return undefined;
  }
}
