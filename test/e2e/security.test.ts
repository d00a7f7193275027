import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, readResponse, type RawResponse } from '../helpers/raw-http.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

/** One raw HTTP/1.1 request (so headers can repeat or carry any byte) and its response. */
async function raw(svc: TestService, head: string[], body = ''): Promise<RawResponse> {
  const socket = await openSocket(svc.url);
  try {
    const lines = [...head, 'Host: localhost', 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`];
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body, 'utf8')]));
    return await readResponse(socket);
  } finally {
    socket.destroy();
  }
}

describe('request-level defences over a real socket', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      channels: { telegram: { botToken: '123:abc', baseUrl: 'http://127.0.0.1:9', allowTo: ['owner-chat'] } },
      hooks: { mappings: [{ id: 'deploy', match: { path: 'ci/deploy' }, action: 'wake', textTemplate: 'deployed' }] },
    });
  });
  afterAll(async () => {
    await svc.close();
  });

  const countRuns = (): unknown => svc.db.prepare('SELECT COUNT(*) AS n FROM runs').get();

  it('refuses a to outside channels.<id>.allowTo with 400 RECIPIENT_NOT_ALLOWED, without quoting it, and accepts one inside', async () => {
    const before = countRuns();
    const refused = await post(`${svc.hooksUrl}/agent`, { message: 'hi', channel: 'telegram', to: 'attacker-chat' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ ok: false, error: '"to" is not in channels.telegram.allowTo', code: 'RECIPIENT_NOT_ALLOWED' });
    expect(countRuns()).toEqual(before);
    expect(svc.rawLogs()).not.toContain('attacker-chat');
    const allowed = await post(`${svc.hooksUrl}/agent`, { message: 'hi', channel: 'telegram', to: 'owner-chat', deliver: false });
    expect(allowed.status).toBe(202);
  });

  it('refuses two Authorization headers with 400, even when one carries the right token', async () => {
    for (const order of [[`Bearer ${TEST_TOKEN}`, 'Bearer wrong'], ['Bearer wrong', `Bearer ${TEST_TOKEN}`]]) {
      const response = await raw(svc, ['POST /hooks/wake HTTP/1.1', 'Content-Type: application/json', ...order.map((v) => `Authorization: ${v}`)], '{"text":"x"}');
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ ok: false, code: 'AMBIGUOUS_CREDENTIALS' });
    }
  });

  it('reads credential header names in any case: a repeat spelled differently is still a repeat', async () => {
    const upper = await raw(svc, ['POST /hooks/wake HTTP/1.1', 'Content-Type: application/json', `AUTHORIZATION: Bearer ${TEST_TOKEN}`], '{"text":"x"}');
    expect(upper.status).toBe(200);
    const header = await raw(svc, ['POST /hooks/wake HTTP/1.1', 'Content-Type: application/json', `X-HookGate-Token: ${TEST_TOKEN}`], '{"text":"x"}');
    expect(header.status).toBe(200);
    const twice = await raw(svc, ['POST /hooks/wake HTTP/1.1', 'Content-Type: application/json', `X-Hookgate-Token: ${TEST_TOKEN}`, `x-hookgate-token: ${TEST_TOKEN}`], '{"text":"x"}');
    expect(twice.status).toBe(400);
    expect(JSON.parse(twice.body)).toMatchObject({ ok: false, code: 'AMBIGUOUS_CREDENTIALS' });
  });

  it('does not trim a no-break space (U+00A0) after the token: only ASCII white space is', async () => {
    const nbsp = await raw(svc, ['POST /hooks/wake HTTP/1.1', 'Content-Type: application/json', `Authorization: Bearer ${TEST_TOKEN}\u00a0`], '{"text":"x"}');
    expect(nbsp.status).toBe(401);
    const tab = await raw(svc, ['POST /hooks/wake HTTP/1.1', 'Content-Type: application/json', `Authorization: Bearer ${TEST_TOKEN} \t`], '{"text":"x"}');
    expect(tab.status).toBe(200);
  });

  it('refuses an encoded "/" in a hook name with 400 INVALID_HOOK_NAME; other escapes are decoded once', async () => {
    const encoded = await post(`${svc.hooksUrl}/ci%2fdeploy`, { x: 1 });
    expect(encoded.status).toBe(400);
    expect(encoded.body.code).toBe('INVALID_HOOK_NAME');
    expect((await post(`${svc.hooksUrl}/ci%2Fdeploy`, { x: 1 })).status).toBe(400);
    expect((await post(`${svc.hooksUrl}/ci/deploy`, { x: 1 })).status).toBe(200);
    expect((await post(`${svc.hooksUrl}/%77ake`, { text: 'decoded once' })).status).toBe(200);
  });

  it('answers OPTIONS with the methods each route serves', async () => {
    const runs = await raw(svc, ['OPTIONS /hooks/runs/0190b6a4-0000-7000-8000-000000000000 HTTP/1.1']);
    expect(runs.status).toBe(204);
    expect(runs.headers['allow']).toBe('GET, HEAD');
    const hook = await raw(svc, ['OPTIONS /hooks/wake HTTP/1.1']);
    expect(hook.status).toBe(204);
    expect(hook.headers['allow']).toBe('POST');
  });

  it('fingerprints an idempotent request over its bytes: bodies that parse alike are different requests', async () => {
    const key = { 'idempotency-key': 'raw-bytes-1' };
    const first = await post(`${svc.hooksUrl}/wake`, '{"text":"t","x":1e400}', key);
    expect(first.status).toBe(200);
    const other = await post(`${svc.hooksUrl}/wake`, '{"text":"t","x":null}', key);
    expect(other.status).toBe(409);
    const retry = await post(`${svc.hooksUrl}/wake`, '{"text":"t","x":1e400}', key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });
});
