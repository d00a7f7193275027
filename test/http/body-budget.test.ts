import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from 'koa';
import { BodyBudget, bodyBudgetGuard, chargeOf } from '../../src/http/body-budget.js';
import { openSocket, readResponse } from '../helpers/raw-http.js';
import { until } from '../helpers/wait.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

describe('BodyBudget', () => {
  it('takes bodies while they fit, refuses the one past the budget, and fits it again once given back', () => {
    const budget = new BodyBudget(100);
    expect(budget.tryTake(60)).toBe(true);
    expect(budget.tryTake(40)).toBe(true);
    expect(budget.tryTake(1)).toBe(false);
    budget.give(60);
    expect(budget.tryTake(50)).toBe(true);
    expect(budget.heldBytes).toBe(90);
  });

  it('lets one body larger than the whole budget in when nothing else is held', () => {
    const budget = new BodyBudget(100);
    expect(budget.tryTake(500)).toBe(true);
    expect(budget.tryTake(1)).toBe(false);
  });

  it('charges the declared length, or the path limit when the length is unknown or the body is compressed', () => {
    expect(chargeOf({ 'content-length': '1234' }, 10_000)).toBe(1234);
    expect(chargeOf({ 'content-length': '99999' }, 10_000)).toBe(10_000);
    expect(chargeOf({ 'transfer-encoding': 'chunked' }, 10_000)).toBe(10_000);
    expect(chargeOf({ 'content-length': '100', 'content-encoding': 'gzip' }, 10_000)).toBe(10_000);
    expect(chargeOf({ 'content-length': '100', 'content-encoding': 'identity' }, 10_000)).toBe(100);
  });
});

describe('bodyBudgetGuard', () => {
  const ctx = { req: { headers: { 'content-length': '700' } } } as unknown as Context;

  it('gives the charge back when the rest of the request fails, as when it succeeds', async () => {
    const budget = new BodyBudget(1000);
    const guard = bodyBudgetGuard(budget, 1000);
    await expect(guard(ctx, () => Promise.reject(new Error('downstream failed')))).rejects.toThrow('downstream failed');
    expect(budget.heldBytes).toBe(0);
    await guard(ctx, async () => {
      expect(budget.heldBytes).toBe(700);
    });
    expect(budget.heldBytes).toBe(0);
  });
});

describe('hooks.bodyBudgetBytes over HTTP', () => {
  let svc: TestService | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await svc?.close();
    svc = undefined;
  });

  /** Sends a wake request's head and all of its body but the last byte: the server holds it, reading. */
  async function holdBody(text: string): Promise<{ socket: Socket; finish: () => void }> {
    const body = JSON.stringify({ text });
    const socket = await openSocket(svc!.url);
    sockets.push(socket);
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    socket.write(body.slice(0, -1));
    return { socket, finish: () => socket.write(body.slice(-1)) };
  }

  it('answers 503 SERVER_BUSY with Retry-After while held bodies fill the budget, and serves again once they are answered', async () => {
    svc = await startTestService({ hooks: { bodyBudgetBytes: 3000 } });
    const held = await holdBody('x'.repeat(2000));
    // The held request is charged once its head is read; wait until a second body no longer fits.
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    await until(async () => {
      const reply = await post(`${svc!.hooksUrl}/wake`, { text: 'y'.repeat(1500) });
      if (reply.status === 503) refused = reply;
      return refused !== undefined;
    });
    expect(refused?.body).toEqual({ ok: false, error: 'too many request bodies in flight; retry shortly', code: 'SERVER_BUSY' });
    expect(refused?.headers.get('retry-after')).toBe('1');
    // A body that fits beside the held one is still taken.
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'small' })).status).toBe(200);
    const answer = readResponse(held.socket);
    held.finish();
    expect((await answer).status).toBe(200);
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'y'.repeat(1500) })).status).toBe(200);
  });
});
