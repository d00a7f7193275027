import { describe, expect, it } from 'vitest';
import { isHeartbeatAck } from '../../src/runtime/ack.js';
import { createManualClock } from '../helpers/manual-clock.js';
import { parseDuration } from '../../src/runtime/duration.js';
import { eventLine, fitBudget } from '../../src/runtime/main-session.js';
import { splitModelRef } from '../../src/runtime/provider-call.js';
import { runSummary, SUMMARY_MAX_CHARS } from '../../src/runtime/summary.js';

describe('parseDuration', () => {
  it('reads ms, s, m and h', () => {
    expect([parseDuration('500ms'), parseDuration('45s'), parseDuration('30m'), parseDuration('1h')]).toEqual([500, 45_000, 1_800_000, 3_600_000]);
  });

  it('refuses other units, fractions and zero', () => {
    for (const bad of ['30', '1d', '1.5h', '0s', '', 'm']) expect(() => parseDuration(bad)).toThrow(/invalid duration/);
  });
});

describe('manual clock', () => {
  it('runs due timers in due order, including ones scheduled while advancing, and skips cleared ones', () => {
    const clock = createManualClock(0);
    const seen: string[] = [];
    clock.setTimer(() => seen.push(`b@${clock.now()}`), 20);
    clock.setTimer(() => {
      seen.push(`a@${clock.now()}`);
      clock.setTimer(() => seen.push(`c@${clock.now()}`), 5);
    }, 10);
    const cleared = clock.setTimer(() => seen.push('never'), 1);
    clock.clearTimer(cleared);
    clock.setTimer(() => seen.push('later'), 100);
    clock.advance(50);
    expect(seen).toEqual(['a@10', 'c@15', 'b@20']);
    expect(clock.now()).toBe(50);
    expect(clock.pendingTimers()).toBe(1);
  });
});

describe('heartbeat acknowledgment', () => {
  it('recognises the bare token, with whitespace or markup around it', () => {
    for (const reply of ['HEARTBEAT_OK', '  HEARTBEAT_OK\n', '**HEARTBEAT_OK**', '`HEARTBEAT_OK`.']) expect(isHeartbeatAck(reply, 0)).toBe(true);
  });

  it('allows up to ackMaxChars of other text beside the token', () => {
    expect(isHeartbeatAck('HEARTBEAT_OK all quiet', 9)).toBe(true);
    expect(isHeartbeatAck('HEARTBEAT_OK all quiet', 8)).toBe(false);
    expect(isHeartbeatAck('Nothing new. HEARTBEAT_OK', 300)).toBe(true);
  });

  it('does not treat replies without the token at either end as acknowledgments', () => {
    for (const reply of ['', 'OK', 'Echo: hello', 'I saw HEARTBEAT_OK in the logs today']) expect(isHeartbeatAck(reply, 300)).toBe(false);
  });
});

describe('run summary', () => {
  it('prefixes the name, and the status when not ok', () => {
    expect(runSummary('GitHub', 'ok', 'Merged.')).toBe('Hook GitHub: Merged.');
    expect(runSummary('GitHub', 'timeout', 'run exceeded 600 s')).toBe('Hook GitHub (timeout): run exceeded 600 s');
    expect(runSummary('CI', 'error', 'boom')).toBe('Hook CI (error): boom');
  });

  it('puts the reply on one line and cuts it at the limit without splitting a character', () => {
    const summary = runSummary('X', 'ok', `a\n\tb  ${'😀'.repeat(SUMMARY_MAX_CHARS)}`);
    const body = summary.slice('Hook X: '.length);
    expect(body.startsWith('a b 😀')).toBe(true);
    expect(Array.from(body)).toHaveLength(SUMMARY_MAX_CHARS);
    expect(body.endsWith('😀…')).toBe(true);
  });

  it('says so when an ok reply is empty', () => {
    expect(runSummary('X', 'ok', ' \n ')).toBe('Hook X: (empty reply)');
  });
});

describe('fitBudget', () => {
  const event = (id: number, text: string) => ({ id, created_at: 0, text, mode: 'now' as const, trusted: 0 });

  it('takes events in order while their lines fit and stops at the first that does not', () => {
    const events = [event(1, 'a'.repeat(10)), event(2, 'b'.repeat(50)), event(3, 'c')];
    const firstLine = eventLine(events[0] ?? event(0, ''));
    const batch = fitBudget(events, firstLine.length + 10);
    expect(batch).toEqual({ ids: [1], lines: [{ line: firstLine, trusted: false }] });
  });

  it('takes an oversized first event alone, cut to the budget', () => {
    const batch = fitBudget([event(7, 'z'.repeat(1000)), event(8, 'next')], 300);
    expect(batch.ids).toEqual([7]);
    expect(batch.lines[0]?.line.length).toBeLessThanOrEqual(300);
    expect(batch.lines[0]?.line).toMatch(/\[event 7 truncated: \d+ of 1000 characters shown; the full text stays in the store\]$/);
  });
});

describe('splitModelRef', () => {
  it('splits at the first slash and refuses a missing side', () => {
    expect(splitModelRef('echo/echo')).toEqual({ providerId: 'echo', model: 'echo' });
    expect(splitModelRef('openrouter/meta-llama/llama-3-8b')).toEqual({ providerId: 'openrouter', model: 'meta-llama/llama-3-8b' });
    expect([splitModelRef('gpt'), splitModelRef('/x'), splitModelRef('x/')]).toEqual([undefined, undefined, undefined]);
  });
});
