import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../helpers/manual-clock.js';
import { openSocket, readResponse } from '../helpers/raw-http.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';
import { until } from '../helpers/wait.js';

const SECRET = 'github-slow-bodies-secret-0123456789';
const GITHUB = { presets: [{ name: 'github', secret: SECRET, debounce: false }] };
/** The default hooks.bodyBudgetBytes shared by six senders: 11,184,810 bytes each. */
const SIXTH_OF_THE_BUDGET = Math.floor((64 * 1024 * 1024) / 6);
/** Far away: a body read that ends does so because the test made it end, not because a timer fired. */
const NEVER_MS = 600_000;

/** A genuine `issues.opened` delivery of about 2 kB, distinct per index. */
function issueOpened(index: number): string {
  const issue = { number: index + 1, title: `Slow bodies ${index}`, state: 'open', html_url: `https://github.com/acme/app/issues/${index + 1}`, body: 'x'.repeat(1700) };
  return JSON.stringify({ action: 'opened', issue, repository: { full_name: 'acme/app' }, sender: { login: 'octocat', type: 'User' } });
}

function deliver(svc: TestService, index: number, headers: Record<string, string> = {}) {
  return sendSignedAs(svc, 'github', issueOpened(index), { secret: SECRET, delivery: `slow-bodies-${index}`, headers: { 'x-github-event': 'issues', ...headers } });
}

async function heldBytes(svc: TestService): Promise<number> {
  const match = /^hookgate_body_budget_held_bytes (\d+)$/m.exec(await svc.service.metrics.render());
  return Number(match?.[1] ?? Number.NaN);
}

describe('slow unauthenticated bodies on a signed path', () => {
  let svc: TestService | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await svc?.close();
    svc = undefined;
  });

  /** A connection that declares `declared` bytes of a GitHub delivery, sends `sent` of them, and stalls. */
  async function stall(declared: number, sent: string, headers: Record<string, string> = {}): Promise<{ socket: Socket; answered: () => boolean }> {
    const socket = await openSocket(svc!.url);
    sockets.push(socket);
    let answered = false;
    socket.on('data', () => {
      answered = true;
    });
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(
      `POST /hooks/github HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-GitHub-Event: issues\r\nX-GitHub-Delivery: stall\r\n` +
        `X-Hub-Signature-256: sha256=${'0'.repeat(64)}\r\n${extra}Content-Length: ${declared}\r\n\r\n${sent}`,
    );
    return { socket, answered: () => answered };
  }

  it('six connections that declare 64 MiB / 6 each and send one byte lock out none of 20 genuine GitHub deliveries', async () => {
    const clock = createManualClock();
    svc = await startTestService({ hooks: { ...GITHUB, bodyTimeoutMs: NEVER_MS } }, { clock });
    const slow = await Promise.all(Array.from({ length: 6 }, () => stall(SIXTH_OF_THE_BUDGET, '{')));
    // The six are being read (each charged what it has sent so far) before the genuine ones arrive.
    await until(async () => (await heldBytes(svc!)) >= 6);
    const statuses = await Promise.all(Array.from({ length: 20 }, async (_, index) => (await deliver(svc!, index)).status));
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 202));
    // They overlapped: the six are still open, unanswered, holding no more than what they sent.
    expect(slow.filter((connection) => connection.answered() || connection.socket.destroyed)).toEqual([]);
    expect(await heldBytes(svc)).toBe(6);
  });

  it('makes room for bodies that arrive by cutting the ones that stalled, when stalled bodies from many addresses fill the budget', async () => {
    // Eight addresses each send half their share fast, then stall: together they hold the whole budget.
    const share = 256 * 1024;
    const clock = createManualClock();
    svc = await startTestService(
      { gateway: { trustedProxies: ['127.0.0.1'] }, hooks: { ...GITHUB, bodyBudgetBytes: 8 * (share / 2), bodyBudgetPerClientBytes: share, bodyTimeoutMs: NEVER_MS, minBodyBytesPerSecond: 0 } },
      { clock },
    );
    const sent = `{"a":"${'x'.repeat(share / 2 - 6)}`;
    const stalled = [];
    for (let index = 0; index < 8; index += 1) stalled.push(await stall(share, sent, { 'X-Forwarded-For': `203.0.113.${index + 1}` }));
    await until(async () => (await heldBytes(svc!)) === 8 * (share / 2));
    const replies = stalled.map((connection) => readResponse(connection.socket, NEVER_MS).catch(() => undefined));
    // A while without a byte from any of them (the rate watch is off: only the budget can cut them).
    clock.advance(3000);
    const statuses = await Promise.all(Array.from({ length: 20 }, async (_, index) => (await deliver(svc!, index, { 'x-forwarded-for': '140.82.115.1' })).status));
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 202));
    // What made the room: stalled bodies cut with 408 (and the connection closed); the rest still open.
    const cut = stalled.flatMap((connection, index) => (connection.answered() ? [replies[index]!] : []));
    expect(cut.length).toBeGreaterThan(0);
    for (const answer of await Promise.all(cut)) expect([answer?.status, answer?.headers['connection'], JSON.parse(answer?.body ?? '{}').code]).toEqual([408, 'close', 'BODY_TIMEOUT']);
  });

  it('holds one address to its share of the budget while its bodies arrive, so other senders still get in', async () => {
    const share = 256 * 1024;
    svc = await startTestService({ gateway: { trustedProxies: ['127.0.0.1'] }, hooks: { ...GITHUB, bodyBudgetBytes: 4 * share, bodyTimeoutMs: NEVER_MS } }, { clock: createManualClock() });
    const from = { 'X-Forwarded-For': '203.0.113.66' };
    const first = await stall(250_001, `{"a":"${'x'.repeat(249_994)}`, from);
    await until(async () => (await heldBytes(svc!)) === 250_000);
    const second = await stall(250_001, `{"a":"${'x'.repeat(249_994)}`, from);
    const refused = await readResponse(second.socket);
    expect([refused.status, JSON.parse(refused.body).code, refused.headers['retry-after']]).toEqual([503, 'SERVER_BUSY', '1']);
    expect((await deliver(svc, 1, { 'x-forwarded-for': '140.82.115.1' })).status).toBe(202);
    expect(first.answered()).toBe(false);
  });

  it('holds an IPv6 client to one share for its whole /64, however many of its addresses it sends from', async () => {
    const share = 256 * 1024;
    svc = await startTestService({ gateway: { trustedProxies: ['127.0.0.1'] }, hooks: { ...GITHUB, bodyBudgetBytes: 4 * share, bodyTimeoutMs: NEVER_MS } }, { clock: createManualClock() });
    const first = await stall(250_001, `{"a":"${'x'.repeat(249_994)}`, { 'X-Forwarded-For': '2001:db8:66:1::1' });
    await until(async () => (await heldBytes(svc!)) === 250_000);
    const second = await stall(250_001, `{"a":"${'x'.repeat(249_994)}`, { 'X-Forwarded-For': '2001:db8:66:1:9e3f::2' });
    const refused = await readResponse(second.socket);
    expect([refused.status, JSON.parse(refused.body).code]).toEqual([503, 'SERVER_BUSY']);
    expect((await deliver(svc, 1, { 'x-forwarded-for': '2001:db8:66:2::1' })).status).toBe(202);
    expect(first.answered()).toBe(false);
  });

  it('answers 408 to a body that arrives slower than hooks.minBodyBytesPerSecond, judged on the injected clock', async () => {
    const clock = createManualClock();
    svc = await startTestService({ hooks: { ...GITHUB, bodyTimeoutMs: NEVER_MS, minBodyBytesPerSecond: 1000 } }, { clock });
    const slow = await stall(10_000, '{"action":"opened",');
    const reply = readResponse(slow.socket);
    // The read is armed (its deadline and its rate check) before time moves.
    await until(() => clock.pendingTimers() >= 2);
    clock.advance(2000);
    const answer = await reply;
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ ok: false, error: 'request body arrived slower than 1000 bytes per second', code: 'BODY_TIMEOUT' });
    expect(answer.headers['connection']).toBe('close');
  });

  it('keeps a body that arrives at the minimum rate', async () => {
    const clock = createManualClock();
    svc = await startTestService({ hooks: { ...GITHUB, bodyTimeoutMs: NEVER_MS, minBodyBytesPerSecond: 1000 } }, { clock });
    const slow = await stall(10_000, `{"a":"${'x'.repeat(2500)}`);
    await until(async () => (await heldBytes(svc!)) === 2506 && clock.pendingTimers() >= 2);
    clock.advance(2000);
    // Judged, and kept: the rate check armed itself again for the next window.
    await until(() => clock.pendingTimers() >= 2 && clock.dueTimers() === 0);
    expect(slow.answered()).toBe(false);
    // The rest arrives and the read ends as any other: the (wrong) signature is checked.
    const reply = readResponse(slow.socket);
    slow.socket.write(`${'x'.repeat(10_000 - 2506 - 2)}"}`);
    const answer = await reply;
    expect([answer.status, JSON.parse(answer.body).code]).toEqual([401, 'SIGNATURE_INVALID']);
  });

  it('counts a 408 for a body that never arrived like a failed authentication', async () => {
    // A real (short) body timeout: the test waits for the 408s, it does not time them.
    svc = await startTestService({ hooks: { ...GITHUB, bodyTimeoutMs: 100, throttle: { maxFailures: 2, windowSeconds: 600 } } });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const slow = await stall(10_000, '{');
      expect((await readResponse(slow.socket)).status).toBe(408);
    }
    const genuine = await deliver(svc, 0);
    expect([genuine.status, genuine.body.code]).toEqual([429, 'TOO_MANY_AUTH_FAILURES']);
  });
});
