import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postToTarget } from '../../src/forward/post.js';
import { startFakeService, type Answer, type FakeService } from '../channels/fake-service.js';

const NOW = Date.UTC(2026, 0, 1);
let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function answerOnce(answer: Answer) {
  service = await startFakeService(() => answer);
  return postToTarget({ url: `${service.baseUrl}/in`, headers: { 'x-extra': '1' }, body: '{"a":1}', timeoutMs: 10_000, signal: new AbortController().signal, fetch: globalThis.fetch, now: NOW });
}

describe('one POST to a target, classified', () => {
  it('sends the body as JSON with the given headers, and takes a 2xx as accepted with its parsed answer', async () => {
    const answer = await answerOnce({ status: 202, json: { runId: 'r-9' } });
    expect(answer).toEqual({ kind: 'accepted', status: 202, json: { runId: 'r-9' } });
    expect(service?.requests[0]).toMatchObject({ method: 'POST', path: '/in', text: '{"a":1}', headers: { 'content-type': 'application/json', 'x-extra': '1' } });
  });

  it.each([408, 409, 425, 429, 500, 503])('retries a %i, with the target\'s Retry-After', async (status) => {
    const answer = await answerOnce({ status, json: { error: 'busy right now' }, headers: { 'retry-after': '2' } });
    expect(answer).toMatchObject({ kind: 'retry', status, retryAfterMs: 2000, reason: `answered ${status}: busy right now` });
  });

  it('reads a Retry-After date against the given clock', async () => {
    const answer = await answerOnce({ status: 503, headers: { 'retry-after': new Date(NOW + 7000).toUTCString() } });
    expect(answer).toMatchObject({ kind: 'retry', retryAfterMs: 7000 });
  });

  it.each([400, 401, 403, 404, 413, 422])('ends on a %i with the target\'s answer', async (status) => {
    const answer = await answerOnce({ status, json: { ok: false, error: 'message required' } });
    expect(answer).toMatchObject({ kind: 'refused', status, reason: `answered ${status}: message required` });
  });

  it('never follows a redirect', async () => {
    const answer = await answerOnce({ status: 307, headers: { location: 'http://127.0.0.1:1/elsewhere' } });
    expect(answer).toMatchObject({ kind: 'refused', status: 307, reason: 'answered 307 (a redirect, not followed)' });
    expect(service?.requests).toHaveLength(1);
  });

  it('retries an unreachable target, naming the error and never the URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const answer = await postToTarget({ url: `http://127.0.0.1:${port}/secret-path?token=abc`, headers: {}, body: '{}', timeoutMs: 10_000, signal: new AbortController().signal, fetch: globalThis.fetch, now: NOW });
    expect(answer).toEqual({ kind: 'retry', reason: 'unreachable (ECONNREFUSED)' });
  });

  it('retries a target that does not answer within the timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const answer = await postToTarget({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}', timeoutMs: 100, signal: new AbortController().signal, fetch: globalThis.fetch, now: NOW });
      expect(answer).toEqual({ kind: 'retry', reason: 'no answer within 0.1 s' });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('rejects when the caller aborted (a shutdown): neither accepted nor failed', async () => {
    service = await startFakeService(() => ({ status: 200 }));
    const stopped = new AbortController();
    stopped.abort(new Error('shutdown'));
    await expect(postToTarget({ url: service.baseUrl, headers: {}, body: '{}', timeoutMs: 10_000, signal: stopped.signal, fetch: globalThis.fetch, now: NOW })).rejects.toThrow();
  });
});
