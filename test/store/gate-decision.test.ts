import { describe, expect, it } from 'vitest';
import { decideGates, gcra, MAX_OPEN_MS, nextCircuit, probingCircuit, type GateState } from '../../src/store/gate-decision.js';
import { isProviderFailure } from '../../src/runtime/gates/circuit.js';
import { ProviderError } from '../../src/providers/types.js';

const rule = { failures: 2, openMs: 20 * 60_000 };

describe('GCRA', () => {
  it('lets limit + burst through after a quiet spell, then spaces hits periodMs / limit apart', () => {
    const throttle = { limit: 2, periodMs: 1000, burst: 1 };
    let tat: number | undefined;
    const hits: boolean[] = [];
    for (let i = 0; i < 4; i += 1) {
      const verdict = gcra(tat, throttle, 0);
      hits.push(verdict.allowed);
      if (verdict.allowed) tat = verdict.tat;
    }
    expect(hits).toEqual([true, true, true, false]);
    expect(gcra(tat, throttle, 0)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(gcra(tat, throttle, 500).allowed).toBe(true);
  });
});

describe('the circuit', () => {
  it('opens after `failures` in a row, a success in between starts the count again, and doubles up to an hour after failed probes', () => {
    let row = nextCircuit(undefined, 'p', true, rule, 0).row;
    row = nextCircuit(row, 'p', false, rule, 1).row;
    expect(row).toMatchObject({ state: 'closed', failures: 0 });
    row = nextCircuit(row, 'p', true, rule, 2).row;
    const opened = nextCircuit(row, 'p', true, rule, 3);
    expect(opened.transition).toEqual({ kind: 'opened', until: 3 + rule.openMs, failures: 2 });
    let current = opened.row;
    const opens: number[] = [];
    for (let probe = 0; probe < 3; probe += 1) {
      current = { ...(current as NonNullable<typeof current>), state: 'probing' };
      const next = nextCircuit(current, 'p', true, rule, 0);
      current = next.row;
      opens.push(current?.openMs ?? 0);
    }
    expect(opens).toEqual([40 * 60_000, MAX_OPEN_MS, MAX_OPEN_MS]);
  });

  it('holds every run but one probe once the open time is up, for as long as the probe executes', () => {
    const state: GateState = { running: 0, tat: undefined, budgets: [], forced: false, probeHeld: false, circuit: { provider: 'p', state: 'open', failures: 5, until: 100, openMs: 100, changedAt: 0 } };
    const gates = { budgets: [], recheckMs: 30, circuit: { provider: 'p', rule } };
    expect(decideGates(gates, state, 99)).toEqual({ kind: 'waiting', waitingFor: 'provider-circuit', notBefore: 100 });
    expect(decideGates(gates, state, 100)).toEqual({ kind: 'start', tat: undefined, probe: true });
    const probing = { ...state, probeHeld: true, circuit: probingCircuit(state.circuit, 'p', rule, 100, 'probe-run') };
    expect(decideGates(gates, probing, 100)).toEqual({ kind: 'waiting', waitingFor: 'provider-circuit', notBefore: 130 });
    expect(decideGates(gates, probing, 100 + 10 * 3_600_000)).toEqual({ kind: 'waiting', waitingFor: 'provider-circuit', notBefore: 100 + 10 * 3_600_000 + 30 });
    expect(decideGates(gates, { ...probing, probeHeld: false }, 101)).toMatchObject({ kind: 'start', probe: true });
  });

  it('counts connection errors, 5xx, 429 and timeouts against the provider, not a refused key, a bad reply or a shutdown', () => {
    const live = new AbortController().signal;
    expect(isProviderFailure(new ProviderError('network', 'x'), live)).toBe(true);
    expect(isProviderFailure(new ProviderError('http', 'x', { status: 502 }), live)).toBe(true);
    expect(isProviderFailure(new ProviderError('rate-limited', 'x', { status: 429 }), live)).toBe(true);
    expect(isProviderFailure(new ProviderError('http', 'x', { status: 404 }), live)).toBe(false);
    expect(isProviderFailure(new ProviderError('auth', 'x', { status: 401 }), live)).toBe(false);
    expect(isProviderFailure(new ProviderError('malformed', 'x'), live)).toBe(false);
    expect(isProviderFailure(new Error('socket hang up'), live)).toBe(true);
    const timedOut = new AbortController();
    timedOut.abort(new Error('timeout'));
    expect(isProviderFailure(new ProviderError('aborted', 'x'), timedOut.signal)).toBe(true);
    const shutdown = new AbortController();
    shutdown.abort(new Error('shutdown'));
    expect(isProviderFailure(new ProviderError('aborted', 'x'), shutdown.signal)).toBe(false);
  });
});
