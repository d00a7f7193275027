import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { BodyBudget, bodyBudgetGuard, chargeOf, STALL_GRACE_MS, STALLED_BELOW_BYTES } from '../../src/http/body-budget.js';
import type { HookError } from '../../src/errors.js';
import { createManualClock } from '../helpers/manual-clock.js';
import { openSocket, readResponse } from '../helpers/raw-http.js';
import { until } from '../helpers/wait.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

describe('BodyBudget', () => {
  it('grows charges while they fit, refuses the chunk past the budget, and fits it again once one is released', () => {
    const budget = new BodyBudget(100);
    const first = budget.open();
    const second = budget.open();
    expect(first.grow(60)).toBe(true);
    expect(second.grow(40)).toBe(true);
    expect(second.grow(1)).toBe(false);
    expect([second.bytes, budget.heldBytes]).toEqual([40, 100]);
    first.release();
    expect(second.grow(50)).toBe(true);
    expect(budget.heldBytes).toBe(90);
  });

  it('costs nothing for a body that has not arrived: opening a charge takes no bytes', () => {
    const budget = new BodyBudget(100);
    for (let index = 0; index < 1000; index += 1) budget.open();
    expect(budget.heldBytes).toBe(0);
    expect(budget.open().grow(100)).toBe(true);
  });

  it('lets one body past the whole budget while no other request holds any of it', () => {
    const budget = new BodyBudget(100);
    const alone = budget.open();
    expect(alone.grow(80)).toBe(true);
    expect(alone.grow(420)).toBe(true);
    expect(budget.open().grow(1)).toBe(false);
  });

  it('charges a reservation or what arrived, whichever is more, and gives it all back once', () => {
    const budget = new BodyBudget(1000);
    const charge = budget.open();
    expect(charge.reserve(300)).toBe(true);
    expect(charge.grow(200)).toBe(true);
    expect(budget.heldBytes).toBe(300);
    expect(charge.grow(150)).toBe(true);
    expect(budget.heldBytes).toBe(350);
    expect(budget.open().reserve(700)).toBe(false);
    charge.release();
    charge.release();
    expect(budget.heldBytes).toBe(0);
  });

  it('holds each client to its share while other clients still get in', () => {
    const budget = new BodyBudget(1000, 300);
    const first = budget.open();
    expect(first.countAgainst('203.0.113.66')).toBe(true);
    expect(first.grow(250)).toBe(true);
    const second = budget.open();
    expect(second.countAgainst('203.0.113.66')).toBe(true);
    expect(second.grow(51)).toBe(false);
    expect(second.grow(50)).toBe(true);
    const other = budget.open();
    expect(other.countAgainst('140.82.115.1')).toBe(true);
    expect(other.grow(600)).toBe(true);
    expect([budget.heldBy('203.0.113.66'), budget.heldBy('140.82.115.1'), budget.heldBytes]).toEqual([300, 600, 900]);
    first.release();
    second.release();
    expect(budget.heldBy('203.0.113.66')).toBe(0);
  });

  it('refuses to count a charge against a client whose other bodies already fill its share', () => {
    const budget = new BodyBudget(1000, 300);
    const held = budget.open();
    held.countAgainst('203.0.113.66');
    held.grow(300);
    const late = budget.open();
    expect(late.grow(10)).toBe(true);
    expect(late.countAgainst('203.0.113.66')).toBe(false);
    expect(budget.heldBy('203.0.113.66')).toBe(300);
  });
});


describe('BodyBudget making room for bodies that arrive', () => {
  /** A budget of 1000 bytes on a manual clock, and charges whose bodies are (not) whole as the test says. */
  function setUp(limit = 1000, perClient = limit) {
    const clock = createManualClock();
    const budget = new BodyBudget(limit, perClient, clock);
    const open = (whole = false) => {
      const state = { whole };
      const charge = budget.open(() => state.whole);
      return Object.assign(charge, { state });
    };
    return { clock, budget, open };
  }

  it('cuts a body that stalled (408, its bytes released at once) so that a chunk of another fits', () => {
    const { clock, budget, open } = setUp();
    const stalled = open();
    expect(stalled.grow(900)).toBe(true);
    clock.advance(2 * STALL_GRACE_MS + 1000);
    const arriving = open();
    expect(arriving.grow(500)).toBe(true);
    expect((stalled.refusal as HookError | undefined)?.code).toBe('BODY_TIMEOUT');
    expect(budget.heldBytes).toBe(500);
    // Bytes that reach a cut body later charge nothing.
    expect(stalled.grow(100)).toBe(true);
    expect(budget.heldBytes).toBe(500);
  });

  it('never cuts a body that arrived whole, one that just started, or one that keeps arriving fast', () => {
    const { clock, open } = setUp(3 * STALLED_BELOW_BYTES);
    const whole = open(true);
    expect(whole.grow(STALLED_BELOW_BYTES)).toBe(true);
    const fast = open();
    expect(fast.grow(STALLED_BELOW_BYTES / 2)).toBe(true);
    clock.advance(STALL_GRACE_MS);
    expect(fast.grow(STALLED_BELOW_BYTES)).toBe(true);
    const young = open();
    expect(young.grow(STALLED_BELOW_BYTES / 2)).toBe(true);
    expect(open().grow(1)).toBe(false);
    for (const charge of [whole, fast, young]) expect(charge.refusal).toBeUndefined();
  });

  it('cuts the slowest first, and only as many as the chunk needs', () => {
    const { clock, budget, open } = setUp();
    const slower = open();
    const slow = open();
    expect(slower.grow(400)).toBe(true);
    expect(slow.grow(400)).toBe(true);
    clock.advance(5000);
    expect(slow.grow(10)).toBe(true); // 10 bytes lately: stalled, but less so than `slower`
    expect(open().grow(300)).toBe(true);
    expect([slower.refusal === undefined, slow.refusal === undefined]).toEqual([false, true]);
    expect(budget.heldBytes).toBe(710);
  });

  it("does not cut other clients' bodies for a client whose own share is full", () => {
    const { clock, open } = setUp(1000, 400);
    const mine = open();
    expect(mine.countAgainst('203.0.113.66')).toBe(true);
    expect(mine.grow(400)).toBe(true);
    const elsewhere = open();
    expect(elsewhere.grow(550)).toBe(true);
    clock.advance(5000);
    const second = open();
    expect(second.countAgainst('203.0.113.66')).toBe(true);
    expect(second.grow(100)).toBe(false);
    expect([mine.refusal, elsewhere.refusal]).toEqual([undefined, undefined]);
  });
});

describe('bodyBudgetGuard', () => {
  /** A request stream the guard can meter: chunks are pushed as node's HTTP parser would. */
  function contextWith(buffered: string): { ctx: Context; req: Readable } {
    const req = Object.assign(new Readable({ read: () => undefined }), { complete: false, headers: {} });
    if (buffered !== '') req.push(Buffer.from(buffered));
    return { ctx: { req, state: {} } as unknown as Context, req };
  }

  it('charges the bytes already buffered and each chunk as it arrives, and gives them back when the request ends', async () => {
    const budget = new BodyBudget(1000);
    const { ctx, req } = contextWith('x'.repeat(100));
    await bodyBudgetGuard(budget)(ctx, async () => {
      expect(budget.heldBytes).toBe(100);
      req.push(Buffer.alloc(250));
      expect(budget.heldBytes).toBe(350);
    });
    expect(budget.heldBytes).toBe(0);
  });

  it('refuses the request whose next chunk does not fit, and gives the charge back when the rest of the request fails', async () => {
    const budget = new BodyBudget(1000);
    const other = budget.open();
    other.grow(900);
    const { ctx, req } = contextWith('x'.repeat(50));
    let refusal: HookError | undefined;
    await expect(
      bodyBudgetGuard(budget)(ctx, async () => {
        chargeOf(ctx)?.whenRefused((reason) => {
          refusal = reason;
        });
        req.push(Buffer.alloc(100));
        throw refusal;
      }),
    ).rejects.toMatchObject({ code: 'SERVER_BUSY', retryAfterSeconds: 1, closeConnection: true });
    expect(budget.heldBytes).toBe(900);
  });

  it('answers 503 at once when the bytes that came with the head do not fit', () => {
    const budget = new BodyBudget(1000);
    budget.open().grow(990);
    const { ctx } = contextWith('x'.repeat(20));
    expect(() => bodyBudgetGuard(budget)(ctx, async () => undefined)).toThrow('too many request bodies in flight');
    expect(budget.heldBytes).toBe(990);
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

  it('answers 503 SERVER_BUSY with Retry-After while bodies that arrived fill the budget, and serves again once they are answered', async () => {
    // A manual clock: the held body is never cut off by its deadline or rate check while the test runs.
    svc = await startTestService({ hooks: { bodyBudgetBytes: 3000 } }, { clock: createManualClock() });
    const held = await holdBody('x'.repeat(2000));
    await until(async () => /^hookgate_body_budget_held_bytes 2010$/m.test(await svc!.service.metrics.render()));
    const refused = await post(`${svc.hooksUrl}/wake`, { text: 'y'.repeat(1500) });
    expect([refused.status, refused.body]).toEqual([503, { ok: false, error: 'too many request bodies in flight; retry shortly', code: 'SERVER_BUSY' }]);
    expect(refused.headers.get('retry-after')).toBe('1');
    // A body that fits beside the held one is still taken.
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'small' })).status).toBe(200);
    const answer = readResponse(held.socket);
    held.finish();
    expect((await answer).status).toBe(200);
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'y'.repeat(1500) })).status).toBe(200);
  });
});
