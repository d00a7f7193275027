import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, readResponse, waitForClose } from '../helpers/raw-http.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

describe('the status table of bad requests', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ hooks: { maxBodyBytes: 1024, bodyTimeoutMs: 300, maxJsonDepth: 8 } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    const response = await post(`${svc.hooksUrl}/wake`, '{"text": ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ ok: false, error: 'request body is not valid JSON', code: 'INVALID_JSON' });
  });

  it('answers a JSON array, string or number with 400', async () => {
    for (const body of ['[1,2]', '"text"', '42']) {
      const response = await post(`${svc.hooksUrl}/wake`, body);
      expect(response.status, body).toBe(400);
      expect(response.body.code, body).toBe('INVALID_JSON');
    }
  });

  it('refuses __proto__ and constructor.prototype keys without polluting anything', async () => {
    const proto = await post(`${svc.hooksUrl}/wake`, '{"text":"x","__proto__":{"polluted":true}}');
    expect(proto.status).toBe(400);
    expect(proto.body.code).toBe('FORBIDDEN_KEY');
    const ctor = await post(`${svc.hooksUrl}/wake`, '{"text":"x","constructor":{"prototype":{"polluted":true}}}');
    expect(ctor.status).toBe(400);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('answers nesting deeper than maxJsonDepth with 400 BODY_TOO_DEEP', async () => {
    const deep = `{"text":"x","a":${'['.repeat(20)}${']'.repeat(20)}}`;
    const response = await post(`${svc.hooksUrl}/wake`, deep);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('BODY_TOO_DEEP');
  });

  it('answers a form body with 415 saying JSON is expected', async () => {
    const response = await post(`${svc.hooksUrl}/wake`, 'text=hi', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(response.body.error).toMatch(/JSON/);
  });

  it('answers an empty body with 400 EMPTY_BODY, whatever the framing or Content-Type', async () => {
    const auth = `Authorization: Bearer ${TEST_TOKEN}\r\n`;
    const requests = {
      'json, Content-Length 0': `Content-Type: application/json\r\nContent-Length: 0\r\n\r\n`,
      'json, no length': `Content-Type: application/json\r\n\r\n`,
      'no type, Content-Length 0': `Content-Length: 0\r\n\r\n`,
      'no type, no length': `\r\n`,
      'json, empty chunked': `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      'json, only whitespace': `Content-Type: application/json\r\nContent-Length: 3\r\n\r\n \n `,
    };
    for (const [label, rest] of Object.entries(requests)) {
      const socket = await openSocket(svc.url);
      socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: x\r\n${auth}${rest}`);
      const response = await readResponse(socket);
      socket.destroy();
      expect(response.status, label).toBe(400);
      expect(JSON.parse(response.body), label).toEqual({ ok: false, error: 'empty body: send a JSON object', code: 'EMPTY_BODY' });
    }
  });

  it('reads text/plain, +json and a missing Content-Type as JSON', async () => {
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'a' }, { 'content-type': 'text/plain' })).status).toBe(200);
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'b' }, { 'content-type': 'application/vnd.acme+json' })).status).toBe(200);
    const socket = await openSocket(svc.url);
    const body = '{"text":"c"}';
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const response = await readResponse(socket);
    socket.destroy();
    expect(response.status).toBe(200);
  });

  it('refuses a declared Content-Length over the limit with 413 before reading, and closes', async () => {
    const socket = await openSocket(svc.url);
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n`);
    const response = await readResponse(socket);
    expect(response.status).toBe(413);
    expect(response.headers['connection']).toBe('close');
    expect(JSON.parse(response.body).code).toBe('PAYLOAD_TOO_LARGE');
    await waitForClose(socket);
  });

  it('refuses a chunked body with 413 as soon as it passes the limit', async () => {
    const socket = await openSocket(svc.url);
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = 'x'.repeat(600);
    socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    // No terminating chunk: the server must answer without waiting for the end of the body.
    const response = await readResponse(socket);
    expect(response.status).toBe(413);
    expect(response.headers['connection']).toBe('close');
    socket.destroy();
  });

  it('answers 408 when the body does not arrive within the read timeout', async () => {
    const socket = await openSocket(svc.url);
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"text":`);
    const response = await readResponse(socket, 5000);
    expect(response.status).toBe(408);
    expect(JSON.parse(response.body).code).toBe('BODY_TIMEOUT');
    await waitForClose(socket);
  });

  it('keeps serving normal requests after all of the above', async () => {
    const response = await post(`${svc.hooksUrl}/wake`, { text: 'still alive' });
    expect(response.status).toBe(200);
  });
});
