/**
 * An open-loop load at a steady rate: each row's requests leave evenly spaced (rate ÷ rows per
 * second each), whatever the server's answers, over a keep-alive pool of `connections` sockets per
 * row. Latency is measured from when a request was due, not from when a socket was free, so a server
 * that falls behind shows it (no coordinated omission).
 *
 * Why not autocannon's `overallRate`: it lets each connection send its quota back to back at the top
 * of every second and then waits for the next, so "300 req/s" over 32 connections arrives as a burst
 * of 300 requests with 32 in flight each second; its latencies measure how fast that burst drains.
 */
import { Agent, request } from 'node:http';
import type { RowRequest, Sample } from './load.js';

const TIMEOUT_MS = 10_000;

interface RowTally {
  latencies: number[];
  failures: number;
  statuses: Map<number | 'error', number>;
  ok: number;
}

export async function measurePaced(
  server: { url: string; cpuMs: () => number },
  rows: readonly RowRequest[],
  load: { durationSeconds: number; connections: number; totalRate: number },
): Promise<{ samples: Sample[]; cpuUsPerRequest: number }> {
  const cpuBefore = server.cpuMs();
  const started = performance.now();
  const intervalMs = (1000 * rows.length) / load.totalRate;
  const endAt = started + load.durationSeconds * 1000;
  const tallies = await Promise.all(rows.map((row, index) => driveRow(server.url, row, { intervalMs, offsetMs: (intervalMs * index) / rows.length, started, endAt, connections: load.connections })));
  const seconds = (performance.now() - started) / 1000;
  const responses = tallies.reduce((sum, t) => sum + t.latencies.length, 0);
  return {
    cpuUsPerRequest: ((server.cpuMs() - cpuBefore) * 1000) / Math.max(1, responses),
    samples: tallies.map((t) => {
      const sorted = t.latencies.sort((a, b) => a - b);
      const at = (q: number): number => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN) * 10) / 10;
      return {
        rps: t.ok / seconds,
        p50: at(0.5),
        p99: at(0.99),
        failures: t.failures,
        statuses: [...t.statuses].map(([code, count]) => `${code}×${count}`).join(' '),
        responses: t.latencies.length,
        cpuUsPerRequest: NaN,
      };
    }),
  };
}

function driveRow(baseUrl: string, row: RowRequest, pace: { intervalMs: number; offsetMs: number; started: number; endAt: number; connections: number }): Promise<RowTally> {
  const url = new URL(row.path, baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: pace.connections });
  const body = Buffer.from(row.body);
  const headers = { ...row.headers, 'content-length': String(body.length) };
  const tally: RowTally = { latencies: [], failures: 0, statuses: new Map(), ok: 0 };
  let sent = 0;
  let inFlight = 0;
  return new Promise((resolve) => {
    const settle = (due: number, status: number | 'error'): void => {
      inFlight -= 1;
      tally.latencies.push(performance.now() - due);
      tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
      if (typeof status === 'number' && status >= 200 && status < 300) tally.ok += 1;
      else tally.failures += 1;
      if (inFlight === 0 && done) finish();
    };
    const send = (due: number): void => {
      inFlight += 1;
      // A request is counted once: the socket may still fail after the response has ended.
      let counted = false;
      const once = (status: number | 'error'): void => {
        if (counted) return;
        counted = true;
        settle(due, status);
      };
      const req = request(url, { method: 'POST', agent, headers, timeout: TIMEOUT_MS }, (res) => {
        res.resume();
        res.once('end', () => once(res.statusCode ?? 0));
        res.once('error', () => once('error'));
      });
      req.once('timeout', () => req.destroy(new Error('timeout')));
      req.once('error', () => once('error'));
      req.end(body);
    };
    let done = false;
    const finish = (): void => {
      agent.destroy();
      resolve(tally);
    };
    const tick = (): void => {
      const now = performance.now();
      // Every request due by now leaves now (a late timer sends the ones it missed at once).
      for (let due = pace.started + pace.offsetMs + sent * pace.intervalMs; due <= now && due < pace.endAt; due = pace.started + pace.offsetMs + sent * pace.intervalMs) {
        sent += 1;
        send(due);
      }
      if (now < pace.endAt) {
        const next = pace.started + pace.offsetMs + sent * pace.intervalMs;
        setTimeout(tick, Math.max(0, next - performance.now()));
        return;
      }
      done = true;
      if (inFlight === 0) finish();
    };
    tick();
  });
}
