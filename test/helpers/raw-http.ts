import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Opens a TCP connection to a http://host:port URL; the caller writes raw HTTP bytes. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads one HTTP/1.1 response (Content-Length framed) from the socket, or rejects after ms. */
export function readResponse(socket: Socket, ms = 15_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no complete response within ${ms} ms; got ${JSON.stringify(buffer.slice(0, 200))}`));
    }, ms);
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const parsed = tryParse(buffer);
      if (parsed !== undefined) {
        cleanup();
        resolve(parsed);
      }
    };
    const onEnd = () => {
      const parsed = tryParse(buffer);
      cleanup();
      if (parsed === undefined) reject(new Error(`connection closed before a full response: ${JSON.stringify(buffer.slice(0, 200))}`));
      else resolve(parsed);
    };
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', () => undefined);
  });
}

function tryParse(buffer: string): RawResponse | undefined {
  const split = buffer.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine, ...headerLines] = buffer.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? '0');
  const body = buffer.slice(split + 4);
  if (Buffer.byteLength(body) < length) return undefined;
  return { status: Number(statusLine?.split(' ')[1]), headers, body };
}

/** Resolves when the server closes the connection, or rejects after ms. */
export function waitForClose(socket: Socket, ms = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed || socket.readableEnded) return resolve();
    const timer = setTimeout(() => reject(new Error('socket still open')), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
