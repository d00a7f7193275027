import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Resolves when the client's connection closes. */
  closed: Promise<void>;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => void;

/** A local stand-in for an OpenAI-compatible server; each test decides how it answers. */
export interface FakeOpenAiServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Resolves with the next request the server receives. */
  nextRequest(): Promise<RecordedRequest>;
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  let handler: Handler = (_request, response) => sendJson(response, 200, completion('default reply'));
  const requests: RecordedRequest[] = [];
  const waiters: ((request: RecordedRequest) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: req.method, url: req.url, headers: req.headers, body: text === '' ? undefined : JSON.parse(text), closed };
      requests.push(recorded);
      waiters.shift()?.(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    handle: (next) => {
      handler = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** A Chat Completions response as the API documents it. */
export function completion(content: unknown): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}
