import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelRequest {
  n: number;
  url: string;
  /** Every message's content of a chat completion, as text (content parts joined). */
  messages: Array<{ role: string; content: string }>;
}

export interface MockModel {
  /** The OpenAI-compatible base URL (`…/v1`). */
  baseUrl: string;
  /** Every chat completion request, in arrival order. */
  requests: ModelRequest[];
  close(): Promise<void>;
}

/**
 * A local OpenAI-compatible model that logs every request it gets and answers each with
 * `MOCK REPLY <n>` (streamed when asked): what OpenClaw's agent turns send to their model,
 * recorded for the test to read.
 */
export async function startMockModel(): Promise<MockModel> {
  const requests: ModelRequest[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      n += 1;
      const body = parse(Buffer.concat(chunks).toString('utf8'));
      if ((req.url ?? '').endsWith('/models')) return json(res, { data: [{ id: 'mock-model', object: 'model' }] });
      requests.push({ n, url: req.url ?? '', messages: (body['messages'] as Array<{ role: string; content: unknown }> | undefined ?? []).map((m) => ({ role: m.role, content: text(m.content) })) });
      const reply = `MOCK REPLY ${n}`;
      const base = { id: `c${n}`, created: 1, model: 'mock-model' };
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
      if (body['stream'] !== true) return json(res, { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }], usage });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: reply }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: import('node:http').ServerResponse, value: unknown): void {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(value));
}

function parse(raw: string): Record<string, unknown> {
  try {
    const value = JSON.parse(raw) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('\n');
  return '';
}
