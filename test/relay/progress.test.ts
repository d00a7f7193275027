import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/relay/client/progress.js';
import type { WireEvent } from '../../src/relay/wire.js';

const event = (id: string, deliveries = 1): WireEvent => ({ id, deliveries, leaseUntil: '2026-01-01T00:01:00.000Z', document: {} });
const taken = { kind: 'taken' as const, answer: { kind: 'accepted' as const, status: 202 } };

describe('hookgate relay progress', () => {
  it('on a terminal, redraws one status line (received, forwarded, refused, the edge backlog) and prints what needs attention above it', () => {
    let screen = '';
    const progress = createProgress({ write: (text) => void (screen += text), isTTY: true });
    progress.pulled(2, 5);
    progress.handed(event('e1'), taken);
    progress.handed(event('e2', 3), { kind: 'refused', reason: 'local target "home" answered 400' });
    progress.unavailable('unreachable (ECONNREFUSED)', 4000);
    const lines = screen.split('\n');
    expect(lines.slice(0, -1).map((line) => line.replace(/^[\s\S]*\r\u001b\[2K/, ''))).toEqual([
      'connected; backlog on the edge: 5',
      'refused e2, delivery 3: local target "home" answered 400; the edge ends it as error',
      'edge unavailable: unreachable (ECONNREFUSED); retrying in 4 s',
    ]);
    expect(lines.at(-1)).toBe('received 2 · forwarded 1 · refused 1 · backlog on the edge 4 · edge unavailable, retrying in 4 s');
  });

  it('elsewhere, writes one plain line per event and change, no control characters', () => {
    let log = '';
    const progress = createProgress({ write: (text) => void (log += text), isTTY: false });
    progress.pulled(1, 1);
    progress.handed(event('e1', 2), taken);
    progress.ackNote('e1', 'not-leased');
    progress.stopped();
    expect(log).not.toMatch(/[\r\u001b]/);
    expect(log.split('\n').filter(Boolean)).toEqual([
      'connected; backlog on the edge: 1',
      'forwarded e1 (HTTP 202, delivery 2)',
      'acknowledgement of e1: not-leased: its lease ran out and another consumer has it now (it dedupes on the same id)',
      'stopped: 1 forwarded, 0 refused; events not acknowledged are handed out again after their lease',
    ]);
  });
});
