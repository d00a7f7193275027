import { describe, expect, it } from 'vitest';
import { createActionBuilder } from '../../src/actions/build.js';
import { newTimeOrderedId } from '../../src/actions/ids.js';
import { createModelPolicy } from '../../src/actions/models.js';
import { agentDefaults } from '../mapping/support.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The millisecond timestamp in a UUIDv7's first 48 bits. */
function timeOf(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
}

async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('time-ordered ids', () => {
  it('are UUIDv7 carrying the time they were made', () => {
    const before = Date.now();
    const id = newTimeOrderedId();
    const after = Date.now();
    expect(id).toMatch(UUID_V7);
    expect(timeOf(id)).toBeGreaterThanOrEqual(before);
    expect(timeOf(id)).toBeLessThanOrEqual(after);
  });

  it('sort as text in the order of the milliseconds they were made in (index keys append)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(newTimeOrderedId());
      await nextMillisecond();
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are what the action builder gives a run and a default session key', () => {
    const builder = createActionBuilder({ models: createModelPolicy(agentDefaults()) });
    const action = builder.agent({ message: 'hello' }, { origin: { hook: 'agent' }, via: 'direct', content: { source: 'Webhook' } });
    expect(action.runId).toMatch(UUID_V7);
    expect(action.sessionKey).toMatch(/^hook:/);
    expect(action.sessionKey.slice('hook:'.length)).toMatch(UUID_V7);
    expect(action.sessionKey.slice('hook:'.length)).not.toBe(action.runId);
  });
});
