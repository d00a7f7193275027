import { createServer, type Server } from 'node:http';
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
  const server = createServer({ maxHeaderSize: options.maxHeaderSize ?? 16 * 1024 }, app.callback());
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 60_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.maxConnections = options.maxConnections ?? 1024;
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
