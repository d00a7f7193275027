import { describe, expect, it } from 'vitest';
import { acknowledgedEnding, droppedEnding } from '../../src/relay/endings.js';
import type { RunRow } from '../../src/store/port.js';

const row = (action: Record<string, unknown>): RunRow => ({
  run_id: 'run-1', created_at: 1000, status: 'queued', hook: 'github', name: 'GitHub', session_key: 'hook:x', action: JSON.stringify(action),
  attempts: 2, started_at: 2000, finished_at: null, reply: null, summary: null, error: null, delivery: null, retry_of: null, kind: 'relay',
});
const origin = { hook: 'github', mappingId: 'preset:github/issues', scheme: 'github', verified: true };

describe('how a relay run ends', () => {
  it('acknowledged as taken: ok, with the consumer, and the callback its action asks for in the same step', () => {
    const end = acknowledgedEnding('laptop', 'laptop-1', 5000)(row({ kind: 'agent', origin, callback: 'inbox' }), { id: 'run-1', taken: true });
    expect(end).toMatchObject({ status: 'ok', at: 5000, summary: 'Relay GitHub → laptop: acknowledged by laptop-1', handoff: { target: 'laptop', consumer: 'laptop-1' } });
    expect(JSON.parse(end.followUp?.action ?? '{}')).toMatchObject({ kind: 'callback', target: 'inbox', document: { runId: 'run-1', status: 'ok', target: { name: 'laptop' } } });
  });

  it('refused by the consumer’s gateway: error with its reason on one line, cut to 300 characters; no callback without one', () => {
    const end = acknowledgedEnding('laptop', 'laptop-1', 5000)(row({ kind: 'agent', origin }), { id: 'run-1', taken: false, reason: `answered 400:\n${'x'.repeat(400)}` });
    expect(end.status).toBe('error');
    expect(end.error).toMatch(/^consumer laptop-1: answered 400: x+…$/);
    expect(Array.from(end.error?.replace('consumer laptop-1: ', '') ?? '')).toHaveLength(300);
    expect(end.followUp).toBeUndefined();
  });

  it('dropped past retention: error naming the retention and where it is set', () => {
    const end = droppedEnding('laptop', 168 * 3_600_000, 9000)(row({ kind: 'wake', origin }));
    expect(end).toMatchObject({ status: 'error', at: 9000, error: 'dropped: not acknowledged within 168 h (targets.laptop.retentionHours)', handoff: { target: 'laptop' } });
  });
});
