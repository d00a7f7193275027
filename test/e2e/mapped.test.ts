import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

const GMAIL = JSON.parse(readFileSync(new URL('../fixtures/payloads/gmail.json', import.meta.url), 'utf8')) as Record<string, unknown>;

const SENSOR = {
  id: 'sensor',
  match: { path: 'sensor' },
  action: 'wake',
  wakeMode: 'next-heartbeat',
  textTemplate: 'Sensor {{sensor}} reads {{value}}',
};


describe('mapped hooks over a real socket', () => {
  let svc: TestService;
  afterEach(async () => {
    await svc.close();
  });

  it('answers a template wake mapping with 200 and stores the rendered text, sanitised and marked untrusted', async () => {
    svc = await startTestService({ hooks: { mappings: [SENSOR] } });
    const response = await post(`${svc.hooksUrl}/sensor`, { sensor: 'garage', value: 31 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true, mode: 'next-heartbeat' });
    const row = svc.db.prepare("SELECT text, trusted FROM events WHERE hook = 'sensor'").get() as { text: string; trusted: number };
    expect(row).toEqual({ text: '[Source: Webhook; Task: sensor] Sensor garage reads 31', trusted: 0 });
  });

  it('answers the gmail preset with 202 and one run per message, committed together', async () => {
    svc = await startTestService({ hooks: { presets: ['gmail'] } });
    const response = await post(`${svc.hooksUrl}/gmail`, GMAIL);
    expect(response.status).toBe(202);
    const messages = GMAIL['messages'] as unknown[];
    expect(response.body.runIds).toHaveLength(messages.length);
    const count = svc.db.prepare("SELECT count(*) AS n FROM runs WHERE hook = 'gmail'").get();
    expect(count).toEqual({ n: messages.length });
  });

  it('answers 400 hook mapping requires text when the template renders empty', async () => {
    svc = await startTestService({ hooks: { mappings: [{ ...SENSOR, textTemplate: '{{missing}}' }] } });
    const response = await post(`${svc.hooksUrl}/sensor`, { sensor: 'x' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ ok: false, error: 'hook mapping requires text', code: 'MAPPING_INVALID' });
  });

  it('never lets a template see the credentials the request carried', async () => {
    svc = await startTestService({
      hooks: { mappings: [{ id: 'leak', match: { path: 'leak' }, action: 'wake', allowUnsafeExternalContent: true, textTemplate: 'a[{{headers.authorization}}] q[{{query.token}}] c[{{headers.cookie}}] u[{{headers.user-agent}}]' }] },
    });
    const response = await post(`${svc.hooksUrl}/leak?token=${TEST_TOKEN}`, {}, { cookie: 'session=1', 'user-agent': 'probe' });
    expect(response.status).toBe(200);
    const row = svc.db.prepare("SELECT text FROM events WHERE hook = 'leak'").get() as { text: string };
    expect(row.text).toBe('a[] q[] c[] u[probe]');
  });

  it('answers 404 for a name no mapping matches', async () => {
    svc = await startTestService({ hooks: { mappings: [SENSOR] } });
    const response = await post(`${svc.hooksUrl}/other`, { a: 1 });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ ok: false, error: 'no hook named "other"', code: 'NOT_FOUND' });
  });

  it('answers 404 naming the hook and the payload source when only match.source kept a mapping from matching', async () => {
    const ingest = { match: { path: 'ingest', source: 'ci' }, action: 'wake', textTemplate: 'x' };
    svc = await startTestService({ hooks: { mappings: [ingest] } });
    const wrongSource = await post(`${svc.hooksUrl}/ingest`, { source: 'uptime' });
    expect(wrongSource.status).toBe(404);
    expect(wrongSource.body).toEqual({ ok: false, error: 'no mapping matched hook "ingest" for a payload with source "uptime"', code: 'NOT_FOUND' });
    const noSource = await post(`${svc.hooksUrl}/ingest`, { source: 7 });
    expect(noSource.body.error).toBe('no mapping matched hook "ingest" for a payload with no string "source" field');
    // The source is payload text: cut to 100 code points, control and bidi characters replaced.
    const hostile = await post(`${svc.hooksUrl}/ingest`, { source: `a\nb\u202e${'x'.repeat(300)}` });
    expect(hostile.body.error).toBe(`no mapping matched hook "ingest" for a payload with source "a\uFFFDb\uFFFD${'x'.repeat(96)}…"`);
  });

  it('reloads an edited config file and keeps the last good version when an edit is broken', async () => {
    svc = await startTestService({ hooks: { mappings: [SENSOR] } }, { configFile: true });
    const file = join(svc.dir, 'hookgate.json5');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { hooks: { mappings: Array<Record<string, unknown>> } };
    config.hooks.mappings[0] = { ...SENSOR, textTemplate: 'v2 {{sensor}}' };
    writeFileSync(file, JSON.stringify(config));
    await until(() => svc.logs.some((line) => line['event'] === 'config.reloaded'));
    await post(`${svc.hooksUrl}/sensor`, { sensor: 'a' });
    const texts = () => svc.db.prepare("SELECT text FROM events WHERE hook = 'sensor' ORDER BY id").all() as Array<{ text: string }>;
    expect(texts()[0]?.text).toContain('v2 a');

    config.hooks.mappings[0] = { ...SENSOR, textTemplate: '{{#if}}broken' };
    writeFileSync(file, JSON.stringify(config));
    await until(() => svc.logs.some((line) => line['event'] === 'config.reload_failed'));
    expect((await post(`${svc.hooksUrl}/sensor`, { sensor: 'b' })).status).toBe(200);
    expect(texts()[1]?.text).toContain('v2 b');
  });
});

describe('the envelope opt-out', () => {
  let svc: TestService;
  afterEach(async () => {
    await svc.close();
  });

  it('cannot be set by a request body, only by a mapping in config', async () => {
    svc = await startTestService({
      hooks: {
        mappings: [
          { id: 'internal', match: { path: 'internal' }, messageTemplate: 'trusted {{note}}', allowUnsafeExternalContent: true },
          { id: 'public', match: { path: 'public' }, messageTemplate: 'untrusted {{note}}' },
        ],
      },
    });
    const direct = await post(`${svc.hooksUrl}/agent`, { message: 'hello', allowUnsafeExternalContent: true });
    const opened = await post(`${svc.hooksUrl}/public`, { note: 'x', allowUnsafeExternalContent: true });
    const internal = await post(`${svc.hooksUrl}/internal`, { note: 'y' });
    const messageOf = (runId: string) => {
      const row = svc.db.prepare('SELECT action FROM runs WHERE run_id = ?').get(runId) as { action: string };
      return (JSON.parse(row.action) as { message: string }).message;
    };
    expect(messageOf(direct.body.runId)).toContain('<<<EXTERNAL_UNTRUSTED_CONTENT');
    expect(messageOf(opened.body.runId)).toContain('<<<EXTERNAL_UNTRUSTED_CONTENT');
    expect(messageOf(internal.body.runId)).toBe('trusted y');
    const warnings = svc.logs.filter((line) => line['event'] === 'mapping.warning').map((line) => JSON.stringify(line));
    expect(warnings.some((line) => line.includes('internal') && line.includes('allowUnsafeExternalContent'))).toBe(true);
  });
});
