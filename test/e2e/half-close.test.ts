import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openSocket, readResponse, waitForClose, type RawResponse } from '../helpers/raw-http.js';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

/**
 * Clients that half-close their side once the request is written (`shutdown(SHUT_WR)`, `nc -N`,
 * some HTTP/1.0 clients) still read the answer: a committed request is never left unanswered (a
 * retry without an Idempotency-Key would make a second run). The connection closes after it.
 */
describe('a client that half-closes after its request', () => {
  let svc: TestService | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await svc?.close();
    svc = undefined;
  });

  async function connect(): Promise<Socket> {
    const socket = await openSocket(svc!.url);
    socket.on('error', () => undefined);
    sockets.push(socket);
    return socket;
  }

  function request(path: string, body: string, extra = ''): string {
    return (
      `POST ${path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
    );
  }

  /** Every byte the server sends until it closes the connection. */
  function everything(socket: Socket): Promise<string> {
    return new Promise((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.once('close', () => resolve(text));
    });
  }

  it('answers /hooks/agent with its run id, stores the run once, then closes the connection', async () => {
    svc = await startTestService();
    const socket = await connect();
    const reply = readResponse(socket);
    socket.end(request('/hooks/agent', JSON.stringify({ message: 'half-closed sender' })));
    const answer: RawResponse = await reply;
    expect(answer.status).toBe(202);
    const runId = (JSON.parse(answer.body) as { runId: string }).runId;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    await waitForClose(socket);
    const runs = svc.db.prepare('SELECT run_id FROM runs').all() as Array<{ run_id: string }>;
    expect(runs.map((run) => run.run_id)).toEqual([runId]);
  });

  it('answers every request written before the half-close (keep-alive), then closes', async () => {
    svc = await startTestService();
    const socket = await connect();
    const received = everything(socket);
    socket.end(request('/hooks/wake', JSON.stringify({ text: 'first' })) + request('/hooks/wake', JSON.stringify({ text: 'second' })));
    const text = await received;
    // `received` settles only once the server closed the connection.
    expect(text.match(/HTTP\/1\.1 200 OK\r\n/g)?.length).toBe(2);
  });

  it('closes a connection whose body was cut short by the half-close, storing nothing', async () => {
    svc = await startTestService();
    const socket = await connect();
    const received = everything(socket);
    const whole = request('/hooks/agent', JSON.stringify({ message: 'never complete' }));
    socket.end(whole.slice(0, whole.length - 5));
    const text = await received;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(svc.db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
  });
});
