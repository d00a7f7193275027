import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closedWithin, connectTo, rawExchange, type RawReply } from '../helpers/load.js';
import { readResponse } from '../helpers/raw-http.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

/** Short limits, so the server's cut-offs happen within a test; the bounds asserted are generous. */
const LIMITS = { headersTimeoutMs: 800, requestTimeoutMs: 1500, keepAliveTimeoutMs: 300 };
const BODY_TIMEOUT_MS = 1000;
/**
 * A cut-off that never comes fails the test after this: the limit, node's check interval, and slack
 * for a loaded machine. It bounds the wait; no test asserts how fast a cut-off is.
 */
const CUT_OFF_BOUND_MS = 15_000;

describe('slow and abusive clients', () => {
  let svc: TestService | undefined;
  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  afterEach(async () => {
    for (const timer of timers.splice(0)) clearInterval(timer);
    for (const socket of sockets.splice(0)) socket.destroy();
    await svc?.close();
    svc = undefined;
  });

  async function open(count: number): Promise<Socket[]> {
    const opened = await Promise.all(Array.from({ length: count }, () => connectTo(svc!.url)));
    for (const socket of opened) socket.on('error', () => undefined);
    sockets.push(...opened);
    return opened;
  }

  /** Writes one more piece every `everyMs` until the socket closes. */
  function trickle(socket: Socket, piece: () => string, everyMs: number): void {
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) return clearInterval(timer);
      socket.write(piece());
    }, everyMs);
    timers.push(timer);
  }

  it('keeps answering normal requests while 200 connections trickle their headers', async () => {
    // A headers limit no request can reach here: the flood is certainly still open while the normal
    // request is served, however slowly a loaded machine runs (the cut-off is the next test's).
    svc = await startTestService({ gateway: { http: { headersTimeoutMs: 600_000, requestTimeoutMs: 600_000 } } });
    const slow = await open(200);
    slow.forEach((socket, index) => {
      socket.write('POST /hooks/wake HTTP/1.1\r\nHost: slow\r\n');
      trickle(socket, () => `X-Trickle-${index}: x\r\n`, 100);
    });
    const normal = await post(`${svc.hooksUrl}/wake`, { text: 'not starved' });
    expect(normal.status).toBe(200);
    expect(slow.filter((socket) => socket.destroyed)).toEqual([]);
  });

  it('cuts off connections that trickle their headers past headersTimeoutMs, then serves again', async () => {
    svc = await startTestService({ gateway: { http: LIMITS } });
    const slow = await open(200);
    slow.forEach((socket, index) => {
      socket.write('POST /hooks/wake HTTP/1.1\r\nHost: slow\r\n');
      trickle(socket, () => `X-Trickle-${index}: x\r\n`, 100);
    });
    await Promise.all(slow.map((socket) => closedWithin(socket, CUT_OFF_BOUND_MS)));
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'after the flood' })).status).toBe(200);
  });

  it('answers 408 to 100 connections trickling their bodies and closes them, while normal requests pass', async () => {
    // Node's own requestTimeout would answer a bare 408 (no JSON body) if it fired first: far away
    // here, so the answer is the hook's body timeout however late a loaded machine runs its timer.
    svc = await startTestService({ gateway: { http: { ...LIMITS, requestTimeoutMs: 600_000 } }, hooks: { bodyTimeoutMs: BODY_TIMEOUT_MS } });
    const slow = await open(100);
    const replies = slow.map((socket) => readResponse(socket, CUT_OFF_BOUND_MS));
    for (const socket of slow) {
      socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: slow\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"`);
      trickle(socket, () => 'x', 100);
    }
    expect((await post(`${svc.hooksUrl}/agent`, { message: 'not starved' })).status).toBe(202);
    for (const reply of await Promise.all(replies)) {
      expect(reply.status).toBe(408);
      expect(JSON.parse(reply.body).code).toBe('BODY_TIMEOUT');
      expect(reply.headers['connection']).toBe('close');
    }
    await Promise.all(slow.map((socket) => closedWithin(socket, CUT_OFF_BOUND_MS)));
    expect(svc.db.prepare('SELECT count(*) AS n FROM events WHERE run_id IS NULL').get()).toEqual({ n: 0 });
  });

  it('closes an idle keep-alive connection after keepAliveTimeoutMs', async () => {
    svc = await startTestService({ gateway: { http: LIMITS } });
    const [socket] = await open(1);
    socket!.write('GET /healthz HTTP/1.1\r\nHost: idle\r\n\r\n');
    expect((await readResponse(socket!)).status).toBe(200);
    await closedWithin(socket!, CUT_OFF_BOUND_MS);
  });

  it('closes connections beyond maxConnections at once and serves again when they go', async () => {
    svc = await startTestService({ gateway: { http: { ...LIMITS, maxConnections: 20 } } });
    const held = await open(20);
    const extra = await connectTo(svc.url);
    sockets.push(extra);
    extra.on('error', () => undefined);
    extra.write('GET /healthz HTTP/1.1\r\nHost: extra\r\n\r\n');
    await closedWithin(extra, CUT_OFF_BOUND_MS);
    for (const socket of held) socket.destroy();
    const reply = await retryUntilServed(`${svc.url}`);
    expect(reply.status).toBe(200);
  });
});

/** The server learns of the closed sockets asynchronously: a few quick tries, bounded. */
async function retryUntilServed(url: string): Promise<RawReply> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const reply = await rawExchange(url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { ms: 2000 });
    if (reply !== 'closed') return reply;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('never served after the held connections closed');
}

describe('failed-auth throttling by client address', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  const wrong = (forwardedFor?: string) => ({ authorization: 'Bearer wrong', ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) });

  it('ignores X-Forwarded-For from an untrusted peer, so a spoofed header does not escape the throttle', async () => {
    svc = await startTestService({ hooks: { throttle: { maxFailures: 3, windowSeconds: 60 } } });
    for (const spoof of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      expect((await post(`${svc.hooksUrl}/wake`, { text: 'a' }, wrong(spoof))).status).toBe(401);
    }
    const blocked = await post(`${svc.hooksUrl}/wake`, { text: 'a' }, wrong('10.0.0.4'));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const throttled = svc.logs.filter((line) => line['event'] === 'hook.rejected' && line['code'] === 'TOO_MANY_AUTH_FAILURES');
    expect(throttled.map((line) => line['client'])).toEqual(['127.0.0.1']);
  });

  it('throttles each forwarded client separately behind a trusted proxy, keyed by the rightmost untrusted hop', async () => {
    svc = await startTestService({ gateway: { trustedProxies: ['127.0.0.1'] }, hooks: { throttle: { maxFailures: 3, windowSeconds: 60 } } });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await post(`${svc.hooksUrl}/wake`, { text: 'a' }, wrong('203.0.113.7'))).status).toBe(401);
    }
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'a' }, wrong('203.0.113.7'))).status).toBe(429);
    // A forged entry on the left does not change who the proxy says is calling.
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'a' }, wrong('198.51.100.9, 203.0.113.7'))).status).toBe(429);
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'a' }, wrong('203.0.113.8'))).status).toBe(401);
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'ok' }, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(200);
  });
});
