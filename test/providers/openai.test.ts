import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../src/log.js';
import type { ProviderDeps } from '../../src/providers/define.js';
import { MAX_RESPONSE_BYTES, openaiCompletionsProvider, type OpenAiCompletionsConfig } from '../../src/providers/openai.js';
import type { CompletionRequest, Provider } from '../../src/providers/types.js';
import { completion, sendJson, startFakeOpenAiServer, type FakeOpenAiServer } from './openai-server.js';
import { failure } from './failure.js';

const API_KEY = 'sk-test-0123456789abcdef';
const deps: ProviderDeps = { fetch: globalThis.fetch, logger: silentLogger() };

let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  await server.close();
});

function provider(extra: Partial<OpenAiCompletionsConfig> = {}, providerDeps: ProviderDeps = deps): Provider {
  return openaiCompletionsProvider.create('remote', { api: 'openai-completions', baseUrl: server.baseUrl, apiKey: API_KEY, ...extra }, providerDeps);
}

function request(overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return {
    model: 'gpt-test',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello' },
    ],
    signal: new AbortController().signal,
    ...overrides,
  };
}


describe('openai-completions provider', () => {
  it('posts the model, messages and bearer key to {baseUrl}/chat/completions and returns the reply', async () => {
    server.handle((_req, res) => sendJson(res, 200, completion('hi there')));
    const result = await provider({ headers: { 'x-extra': 'yes' } }).complete(request({ thinking: 'high' }));
    expect(result).toEqual({ text: 'hi there' });
    const [received] = server.requests;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/v1/chat/completions');
    expect(received?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['x-extra']).toBe('yes');
    expect(received?.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello' },
      ],
      reasoning_effort: 'high',
    });
  });

  it('tolerates a trailing slash in baseUrl and sends no Authorization header without an apiKey', async () => {
    const keyless = openaiCompletionsProvider.create('local', { api: 'openai-completions', baseUrl: `${server.baseUrl}/` }, deps);
    await keyless.complete(request());
    expect(server.requests[0]?.url).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('leaves reasoning_effort out for a thinking level the API does not know, notes it on the run and logs it at debug', async () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const logger = createLogger({ level: 'debug', destination });
    const notes: string[] = [];
    await provider({}, { fetch: globalThis.fetch, logger }).complete(request({ thinking: 'max', note: (text) => void notes.push(text) }));
    expect(server.requests[0]?.body).not.toHaveProperty('reasoning_effort');
    expect(notes).toEqual(['thinking "max" not sent: openai-completions takes minimal, low, medium, high']);
    expect(lines.some((line) => line.includes('provider.thinking_ignored') && line.includes('"max"'))).toBe(true);
    expect(lines.join('')).not.toContain(API_KEY);
  });

  it('follows its catalog: maxTokens is sent as max_tokens, and no thinking level to a model with reasoning: false (noted on the run)', async () => {
    const catalog = { models: [{ id: 'gpt-test', reasoning: false, maxTokens: 512, contextWindow: 8192 }, { id: 'thinker', reasoning: true }] };
    const notes: string[] = [];
    const note = (text: string): void => void notes.push(text);
    await provider(catalog).complete(request({ thinking: 'high', note }));
    expect(notes).toEqual(['thinking "high" not sent: the catalog of provider "remote" says model "gpt-test" takes no thinking level (reasoning: false)']);
    await provider(catalog).complete(request({ model: 'thinker', thinking: 'high', note }));
    expect(notes).toHaveLength(1);
    expect(server.requests[0]?.body).toMatchObject({ model: 'gpt-test', max_tokens: 512 });
    expect(server.requests[0]?.body).not.toHaveProperty('reasoning_effort');
    expect(server.requests[1]?.body).toMatchObject({ model: 'thinker', reasoning_effort: 'high' });
    expect(server.requests[1]?.body).not.toHaveProperty('max_tokens');
  });

  it('joins the text of a reply given as content parts', async () => {
    server.handle((_req, res) => sendJson(res, 200, completion([{ type: 'text', text: 'one ' }, { type: 'text', text: 'two' }])));
    await expect(provider().complete(request())).resolves.toEqual({ text: 'one two' });
  });

  it('reports 401 as an auth failure without the key', async () => {
    server.handle((_req, res) => sendJson(res, 401, { error: { message: `Incorrect API key provided: ${API_KEY}`, type: 'invalid_request_error' } }));
    const error = await failure(provider().complete(request()));
    expect(error.reason).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).not.toContain(API_KEY);
  });

  it('reports 403 as an auth failure', async () => {
    server.handle((_req, res) => sendJson(res, 403, { error: { message: 'forbidden' } }));
    expect((await failure(provider().complete(request()))).reason).toBe('auth');
  });

  it('reports 429 as rate-limited with the Retry-After value', async () => {
    server.handle((_req, res) => sendJson(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '7' }));
    const error = await failure(provider().complete(request()));
    expect(error.reason).toBe('rate-limited');
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(7);
    expect(error.message).toContain('Retry-After: 7');
    expect(error.message).toContain('Rate limit reached');
  });

  it('reads a fractional Retry-After as seconds rounded up, not as a date', async () => {
    server.handle((_req, res) => sendJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1.5' }));
    expect((await failure(provider().complete(request()))).retryAfterSeconds).toBe(2);
  });

  it("reports a 500 as an http error carrying the status and the server's error.message, truncated", async () => {
    server.handle((_req, res) => sendJson(res, 500, { error: { message: `The server had an error. ${'x'.repeat(1000)}` } }));
    const error = await failure(provider().complete(request()));
    expect(error.reason).toBe('http');
    expect(error.status).toBe(500);
    expect(error.message).toContain('HTTP 500: The server had an error.');
    expect(error.message.length).toBeLessThan(400);
  });

  it('reports a redirect as an http error instead of following it with the key', async () => {
    server.handle((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      res.end();
    });
    const error = await failure(provider().complete(request()));
    expect(error.reason).toBe('http');
    expect(error.status).toBe(302);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a body that is not JSON as malformed', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [');
    });
    expect((await failure(provider().complete(request()))).reason).toBe('malformed');
  });

  it('reports a reply without choices as malformed', async () => {
    server.handle((_req, res) => sendJson(res, 200, { id: 'x', object: 'chat.completion', choices: [] }));
    const error = await failure(provider().complete(request()));
    expect(error.reason).toBe('malformed');
    expect(error.message).toContain('choices[0].message.content');
  });

  it('reports a reply whose content is null as malformed', async () => {
    server.handle((_req, res) => sendJson(res, 200, completion(null)));
    expect((await failure(provider().complete(request()))).reason).toBe('malformed');
  });

  it('refuses a response larger than the cap without buffering it all', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(1024 * 1024);
      for (let i = 0; i <= MAX_RESPONSE_BYTES / chunk.length; i++) res.write(chunk);
      res.end();
    });
    const error = await failure(provider().complete(request()));
    expect(error.reason).toBe('malformed');
    expect(error.message).toContain('larger than');
  });

  it('reports a refused connection as a network error', async () => {
    const closed = await startFakeOpenAiServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const unreachable = openaiCompletionsProvider.create('gone', { api: 'openai-completions', baseUrl, apiKey: API_KEY }, deps);
    const error = await failure(unreachable.complete(request()));
    expect(error.reason).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain(API_KEY);
  });

  it('rejects promptly as aborted and closes the connection when the signal aborts while waiting for the reply', async () => {
    server.handle(() => undefined);
    const controller = new AbortController();
    const arrived = server.nextRequest();
    const pending = provider().complete(request({ signal: controller.signal }));
    const received = await arrived;
    // The server never answers: only the abort can end the call, and it closes the connection.
    controller.abort();
    const error = await failure(pending);
    expect(error.reason).toBe('aborted');
    await received.closed;
  });

  it('rejects as aborted when the signal aborts in the middle of the response body', async () => {
    const controller = new AbortController();
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices": [', () => controller.abort());
    });
    const pending = provider().complete(request({ signal: controller.signal }));
    const error = await failure(pending);
    expect(error.reason).toBe('aborted');
    await server.requests[0]?.closed;
  });

  it('rejects at once without a request when the signal is already aborted', async () => {
    const error = await failure(provider().complete(request({ signal: AbortSignal.abort() })));
    expect(error.reason).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  it('gives up with reason timeout after timeoutMs', async () => {
    server.handle(() => undefined);
    const error = await failure(provider({ timeoutMs: 100 }).complete(request()));
    expect(error.reason).toBe('timeout');
    await server.requests[0]?.closed;
  });
});
