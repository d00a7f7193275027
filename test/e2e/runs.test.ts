import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

async function runOf(svc: TestService, runId: string, headers: Record<string, string> = { authorization: `Bearer ${TEST_TOKEN}` }) {
  const response = await fetch(`${svc.hooksUrl}/runs/${runId}`, { headers });
  return { status: response.status, body: (await response.json()) as any };
}

describe('GET {path}/runs/<runId>', () => {
  let svc: TestService;
  beforeEach(async () => {
    svc = await startTestService({ agents: { defaults: { delivery: { channel: 'log' } } } });
  });
  afterEach(async () => {
    await svc.close();
  });

  it('reports a run through to its outcome with the echo provider and the log channel', async () => {
    const { body } = await post(`${svc.hooksUrl}/agent`, { message: 'ping', name: 'Probe' });
    let view = await runOf(svc, body.runId);
    await until(async () => (view = await runOf(svc, body.runId)).body.run.status === 'ok');
    expect(view.status).toBe(200);
    expect(view.body.run).toMatchObject({ runId: body.runId, status: 'ok', hook: 'agent', name: 'Probe' });
    expect(view.body.run.summary).toBe('Hook Probe: Echo: ping'); // the echo shows the sender's text, not the envelope
    // …while what the provider was given is still enveloped.
    const row = svc.db.prepare('SELECT action FROM runs WHERE run_id = ?').get(body.runId) as { action: string };
    expect(JSON.parse(row.action).message).toMatch(/^SECURITY NOTICE: [\s\S]*<<<EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>\nSource: Webhook\nTask: Probe\n---\nping\n<<<END_EXTERNAL_UNTRUSTED_CONTENT/);
    expect(view.body.run.delivery).toMatchObject({ status: 'delivered', channel: 'log' });
  });

  it('needs the hook token', async () => {
    const { body } = await post(`${svc.hooksUrl}/agent`, { message: 'ping' });
    expect((await runOf(svc, body.runId, {})).status).toBe(401);
  });

  it('answers GET {path}/runs without an id with 404 saying the id is missing, not 405', async () => {
    for (const url of [`${svc.hooksUrl}/runs`, `${svc.hooksUrl}/runs/`]) {
      const response = await fetch(url, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      expect(response.status, url).toBe(404);
      expect(await response.json(), url).toEqual({ ok: false, error: 'a run id is required: GET /hooks/runs/<runId>', code: 'NOT_FOUND' });
    }
    expect((await fetch(`${svc.hooksUrl}/runs`)).status).toBe(401);
  });

  it('answers 404 for an unknown run', async () => {
    const view = await runOf(svc, '00000000-0000-0000-0000-000000000000');
    expect(view.status).toBe(404);
    expect(view.body.code).toBe('NOT_FOUND');
  });
});
