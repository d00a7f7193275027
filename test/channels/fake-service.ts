import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '../../src/log.js';
import type { ChannelDeps } from '../../src/channels/types.js';

/** One request as the fake service saw it. */
export interface Recorded {
  method: string;
  /** Path and query, exactly as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
}

/** An answer now, or later (a fake that calls back into the service before answering, as GitHub may send a webhook first). */
export type Handler = (request: Recorded) => Answer | Promise<Answer>;

export interface FakeService {
  baseUrl: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/** A local HTTP server on 127.0.0.1:0 that answers like a chat service, via `handler`. */
export async function startFakeService(handler: Handler): Promise<FakeService> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: Recorded = { method: req.method ?? '', url: req.url ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, text, json: parse(text) };
      requests.push(recorded);
      void Promise.resolve()
        .then(() => handler(recorded))
        .then(
          (answer) => {
            const body = answer.json === undefined ? (answer.text ?? '') : JSON.stringify(answer.json);
            const type = answer.json === undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
            res.writeHead(answer.status, { 'content-type': type, ...answer.headers });
            res.end(body);
          },
          (error: unknown) => {
            res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
            res.end(`fake service handler failed: ${(error as Error).message}`);
          },
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Deps for channel tests: the real fetch against the local server, a silent logger. */
export function testDeps(overrides: Partial<ChannelDeps> = {}): ChannelDeps {
  return { fetch: globalThis.fetch, logger: silentLogger(), ...overrides };
}

/** A sleep that returns at once and remembers what it was asked to wait. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
}

/** The backoff's jitter source pinned to the top of its range: every wait is the whole step. */
export const wholeStep = (): number => 0.999_999_9;

/** Reads a field of a recorded JSON body. */
export function bodyOf(request: Recorded | undefined): Record<string, unknown> {
  const json = request?.json;
  return typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
}

/** A text of `paragraphs` paragraphs of `words` words each, longer than most limits. */
export function longText(paragraphs: number, words: number): string {
  return Array.from({ length: paragraphs }, (_, p) => Array.from({ length: words }, (_, w) => `p${p}w${w}`).join(' ')).join('\n\n');
}

/** Every part's words, in order, joined: what a reader sees across the parts. */
export function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== '');
}
