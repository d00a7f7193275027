/**
 * The shared skeleton of the two reference servers (bench/reference-http.ts and
 * bench/reference-durable.ts): the least a webhook endpoint on node:http can do — read the body
 * (capped), parse it as JSON, compare a bearer token in constant time, answer. It runs as its own
 * child process so the harness can measure it exactly like Hookgate.
 * Env: REF_PORT (listen port on 127.0.0.1), REF_TOKEN (bearer token).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

const MAX_BODY = 1024 * 1024;

/** accept() does whatever "accepting" costs for this reference; the answer waits for it. */
export function serveReference(accept: (body: string) => Promise<void>): void {
  const port = Number(process.env['REF_PORT'] ?? '0');
  const expected = Buffer.from(`Bearer ${process.env['REF_TOKEN'] ?? ''}`);
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/readyz') return answer(res, 200, { ok: true });
    if (req.method !== 'POST') return answer(res, 405, { ok: false });
    readBody(req).then(
      async (body) => {
        const given = Buffer.from(req.headers.authorization ?? '');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return answer(res, 401, { ok: false });
        try {
          JSON.parse(body);
        } catch {
          return answer(res, 400, { ok: false });
        }
        await accept(body);
        answer(res, 200, { ok: true });
      },
      () => answer(res, 413, { ok: false }),
    );
  });
  server.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    // Do not wait for a lingering keep-alive socket forever.
    setTimeout(() => process.exit(0), 500).unref();
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.destroy();
        reject(new Error('too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
