import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyBudget, bodyBudgetGuard } from '../../src/http/body-budget.js';
import { jsonBodyReader } from '../../src/http/body.js';
import { openSocket, readResponse } from '../helpers/raw-http.js';

// A full collection on demand: what stays reachable from a live object is what a heap keeps.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Node keeps a keep-alive connection's last request object (its parser's `incoming`) until the
 * next request on that connection arrives. Whatever that object reaches lives as long: under a
 * steady load, every request's context, body and response outlived its young-generation
 * collections and was promoted, and the old generation filled and was collected many times as
 * often (bench/RESULTS.md, the soak of issue 36 item 4).
 */
describe('a request object after its answer', () => {
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  });

  it("keeps nothing of the request's context alive, whether its body came in pieces or at once", async () => {
    const markers: Array<WeakRef<object>> = [];
    const requests: IncomingMessage[] = [];
    let headersSeen: () => void = () => undefined;
    const app = new Koa();
    app.use((_ctx, next) => {
      headersSeen();
      return next();
    });
    app.use(bodyBudgetGuard(new BodyBudget(1024 * 1024)));
    app.use(jsonBodyReader({ maxBodyBytes: 65536, maxJsonDepth: 32, bodyTimeoutMs: 10_000, minBodyBytesPerSecond: 1000 }));
    app.use((ctx) => {
      const marker = { payload: ctx.state['payload'] };
      ctx.state['marker'] = marker;
      markers.push(new WeakRef(marker));
      // What the connection's parser does until the next request: hold on to this one.
      requests.push(ctx.req);
      ctx.status = 202;
      ctx.body = { ok: true };
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server?.once('listening', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const body = JSON.stringify({ text: 'x'.repeat(2000) });
    const head = `POST /hooks/x HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;

    const socket = await openSocket(url);
    // In pieces: the rest of the body arrives after the middlewares have started on the request.
    const seen = new Promise<void>((resolve) => (headersSeen = resolve));
    socket.write(head + body.slice(0, 100));
    await seen;
    const inPieces = readResponse(socket);
    socket.write(body.slice(100));
    expect((await inPieces).status).toBe(202);
    // At once, on the same connection.
    const atOnce = readResponse(socket);
    socket.write(head + body);
    expect((await atOnce).status).toBe(202);

    // WeakRef targets stay alive until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(requests).toHaveLength(2);
    expect(markers.map((marker) => marker.deref() === undefined)).toEqual([true, true]);
    socket.destroy();
  });
});
