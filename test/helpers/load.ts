import { connect, type Socket } from 'node:net';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends raw bytes on a fresh connection and reads the first response. Resolves `closed` when the
 * server closes without answering; rejects only when nothing happens within ms (a hung connection).
 * The socket is always destroyed before it settles.
 */
export function rawExchange(url: string, request: Buffer | string, options: { ms?: number; head?: boolean } = {}): Promise<RawReply | 'closed'> {
  const { hostname, port } = new URL(url);
  const ms = options.ms ?? 15_000;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let buffer = Buffer.alloc(0);
    const finish = (outcome: RawReply | 'closed' | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(() => finish(new Error(`no response within ${ms} ms: ${JSON.stringify(buffer.toString('latin1').slice(0, 200))}`)), ms);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const parsed = parseResponse(buffer, options.head === true, false);
      if (parsed !== undefined) finish(parsed);
    });
    // The server may reset a connection it refused while we still write: that is an answer, not a hang.
    socket.on('error', () => finish(parseResponse(buffer, options.head === true, true) ?? 'closed'));
    socket.on('close', () => finish(parseResponse(buffer, options.head === true, true) ?? 'closed'));
  });
}

/** One HTTP/1.1 response: Content-Length or chunked framed, or delimited by the close. */
export function parseResponse(buffer: Buffer, head: boolean, ended: boolean): RawReply | undefined {
  const split = buffer.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine, ...lines] = buffer.subarray(0, split).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine?.split(' ')[1]);
  const rest = buffer.subarray(split + 4);
  // An interim response (100 Continue) precedes the real one.
  if (status >= 100 && status < 200 && status !== 101) return parseResponse(rest, head, ended);
  if (head || status === 204 || status === 304) return { status, headers, body: '' };
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const body = dechunk(rest);
    return body === undefined ? undefined : { status, headers, body };
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return rest.length < length ? undefined : { status, headers, body: rest.subarray(0, length).toString('utf8') };
  }
  return ended ? { status, headers, body: rest.toString('utf8') } : undefined;
}

function dechunk(data: Buffer): string | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts).toString('utf8');
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/** Runs `worker` over items with at most `concurrency` at once, in item order per worker. */
export async function runConcurrently<T>(items: readonly T[], concurrency: number, worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await worker(item);
    }
  });
  await Promise.all(lanes);
}

/** Opens a connection and resolves once it is established. */
export function connectTo(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with the time the socket took to be closed by the peer, or rejects after ms. */
export function closedWithin(socket: Socket, ms: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve(0);
    const timer = setTimeout(() => reject(new Error(`socket still open after ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}
