import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

describe('wake and agent over a real socket', () => {
  let svc: TestService;
  beforeEach(async () => {
    svc = await startTestService();
  });
  afterEach(async () => {
    await svc.close();
  });

  it('answers a wake with 200 and stores one pending event, its text sanitised and marked untrusted', async () => {
    const response = await post(`${svc.hooksUrl}/wake`, { text: 'New email', mode: 'now' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true, mode: 'now' });
    const rows = svc.db.prepare("SELECT text, mode, hook, trusted FROM events WHERE hook = 'wake'").all();
    expect(rows).toEqual([{ text: 'New email', mode: 'now', hook: 'wake', trusted: 0 }]);
  });

  it('defaults the wake mode to now', async () => {
    const response = await post(`${svc.hooksUrl}/wake`, { text: 'x' });
    expect(response.body).toEqual({ ok: true, mode: 'now' });
  });

  it('answers an agent request with 202 and a queued run under that runId', async () => {
    const response = await post(`${svc.hooksUrl}/agent`, { message: 'Summarise', name: 'Email' });
    expect(response.status).toBe(202);
    expect(response.body.ok).toBe(true);
    expect(response.body.runId).toMatch(/^[0-9a-f-]{36}$/);
    const row = svc.db.prepare('SELECT status, name, session_key, action FROM runs WHERE run_id = ?').get(response.body.runId) as Record<string, string>;
    // The embedded runtime may already have picked it up.
    expect(['queued', 'running', 'ok']).toContain(row.status);
    expect(row.name).toBe('Email');
    expect(row.session_key).toMatch(/^hook:[0-9a-f-]{36}$/);
    const action = JSON.parse(String(row.action));
    expect(action.deliver).toBe(true);
    expect(action.channel).toBe('last');
    expect(action.wakeMode).toBe('now');
    expect(action.message).toContain('Summarise');
  });

  it('rejects a wake without text with 400 text required', async () => {
    const response = await post(`${svc.hooksUrl}/wake`, { mode: 'now' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ ok: false, error: 'text required', code: 'INVALID_BODY' });
  });

  it('rejects an empty message with 400 message required', async () => {
    const response = await post(`${svc.hooksUrl}/agent`, { message: '   ' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('message required');
  });

  it('rejects an unknown channel and an empty model with 400', async () => {
    const badChannel = await post(`${svc.hooksUrl}/agent`, { message: 'x', channel: 'carrier-pigeon' });
    expect(badChannel.status).toBe(400);
    expect(badChannel.body.code).toBe('INVALID_BODY');
    expect(badChannel.body.error).toMatch(/^channel must be one of "last", "log", "telegram", .*\(got "carrier-pigeon"\)$/);
    const emptyModel = await post(`${svc.hooksUrl}/agent`, { message: 'x', model: '' });
    expect(emptyModel.status).toBe(400);
  });

  it('rejects a bad mode value with 400 naming the field', async () => {
    const response = await post(`${svc.hooksUrl}/wake`, { text: 'x', mode: 'later' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('mode must be one of "now", "next-heartbeat"');
  });

  it('returns 404 for an unknown hook name and for the bare prefix', async () => {
    expect((await post(`${svc.hooksUrl}/nope`, {})).status).toBe(404);
    const bare = await post(svc.hooksUrl, {});
    expect(bare.status).toBe(404);
    expect(bare.body.code).toBe('NOT_FOUND');
  });

  it('returns 405 with Allow: POST before checking the token', async () => {
    const response = await fetch(`${svc.hooksUrl}/wake`, { method: 'GET' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(((await response.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers /healthz and /readyz without a token and without revealing config', async () => {
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const ready = await fetch(`${svc.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).not.toContain(TEST_TOKEN);
  });
});
