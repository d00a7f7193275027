import type { DatabaseSync } from 'node:sqlite';
import type { AgentAction } from '../../src/actions/types.js';
import type { TargetAnswer } from '../../src/store/port.js';
import type { ForwardedAction, TargetPort } from '../../src/runtime/ports.js';
import { agentAction, insertRun } from './helpers.js';

export interface TargetCall {
  id: string;
  at: number;
  action?: ForwardedAction;
  document?: Record<string, unknown>;
}

type Settings = TargetPort['settings'];
export const RETRY: Settings['retry'] = { maxAttempts: 5, maxAgeMs: 24 * 3_600_000, minDelayMs: 1000, maxDelayMs: 60_000 };

/**
 * A target that answers from a script (the last answer repeats), recording every POST with the
 * clock's time. `hold` makes a POST wait until released or aborted (a shutdown mid-POST).
 */
export function scriptedTarget(
  name: string,
  answers: TargetAnswer[],
  options: { now: () => number; settings?: Partial<Settings>; takesCallbacks?: boolean },
): TargetPort & { calls: TargetCall[]; hold: boolean } {
  const calls: TargetCall[] = [];
  const target = {
    name,
    kind: 'test',
    settings: { retry: RETRY, ...options.settings },
    calls,
    hold: false,
    async handOff({ id, action, signal }: { id: string; action: ForwardedAction; signal: AbortSignal }) {
      calls.push({ id, action, at: options.now() });
      return answer(signal);
    },
    ...(options.takesCallbacks === false
      ? {}
      : {
          async deliver({ id, document, signal }: { id: string; document: Record<string, unknown>; signal: AbortSignal }) {
            calls.push({ id, document, at: options.now() });
            return answer(signal);
          },
        }),
  };
  async function answer(signal: AbortSignal): Promise<TargetAnswer> {
    if (target.hold) {
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    }
    return answers.length > 1 ? (answers.shift() as TargetAnswer) : (answers[0] as TargetAnswer);
  }
  return target;
}

/** Inserts a queued forward run exactly as the ingress store does (kind forward, the action as JSON). */
export function insertForward(db: DatabaseSync, at: number, overrides: Partial<AgentAction> & { forward?: string; callback?: string } = {}): AgentAction & { forward: string } {
  const action = { ...agentAction({ origin: { hook: 'github', mappingId: 'gh' } }), forward: 'home', untrusted: true as const, ...overrides };
  return insertRun(db, action, at, 'forward');
}
