import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';

export interface ListenOptions {
  host: string;
  port: number;
  /** Headers must arrive within this; a slowloris trickle is cut off. */
  headersTimeoutMs?: number;
  /** The whole request (headers and body) must arrive within this. */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  maxHeaderSize?: number;
  maxConnections?: number;
}

export interface Listening {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish within graceMs, then closes every connection. */
  close(graceMs: number): Promise<void>;
}

/** Starts a node:http server for the app with deliberate limits against slow and abusive clients. */
export async function listen(app: Koa, options: ListenOptions): Promise<Listening> {
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  // node refuses headersTimeout > requestTimeout; the whole request bounds its headers anyway.
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  const server = createServer(
    {
      maxHeaderSize: options.maxHeaderSize ?? 16 * 1024,
      headersTimeout,
      requestTimeout,
      // node checks both timeouts only this often (default 30 s): a check every quarter of the
      // shorter limit cuts a slowloris off close to the limit instead of up to 30 s after it.
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(headersTimeout / 4))),
    },
    app.callback(),
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  allowHalfOpen(server);
  server.maxConnections = options.maxConnections ?? 1024;
  server.on('connect', refuseConnect);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    server,
    url: `http://${host}:${port}`,
    close: (graceMs) => closeGracefully(server, graceMs),
  };
}

/**
 * A client that half-closes its side once its request is written (`shutdown(SHUT_WR)`, `nc -N`,
 * some HTTP/1.0 clients) still gets the answer: by default node ends the connection as soon as the
 * client's side ends, so a request already committed went unanswered and its retry made a second
 * run. With half-open allowed, node marks the last response in flight as the connection's last and
 * closes once it is sent (an idle connection at once); a body cut short by the half-close is still
 * a parse error, and the request and keep-alive timeouts still bound the connection.
 */
function allowHalfOpen(server: Server): void {
  // node:http's own switch (lib/_http_server.js), not in its type declarations.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

/** CONNECT is never a webhook: answer 405 like any other method instead of node's silent close. */
function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  const body = JSON.stringify({ ok: false, error: 'CONNECT not allowed: use POST', code: 'METHOD_NOT_ALLOWED' });
  socket.on('error', () => undefined);
  // The socket is no longer node:http's to track or close: destroy it once the answer is flushed.
  socket.resume();
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
