import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';
import { sendSignedAs } from '../helpers/signature-fixtures.js';

const SECRET = 'github-charset-secret-0123456789';

async function wake(svc: TestService, contentType: string, body: Buffer): Promise<{ status: number; body: { ok: boolean; code?: string; error?: string } }> {
  const response = await fetch(`${svc.hooksUrl}/wake`, { method: 'POST', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': contentType }, body });
  return { status: response.status, body: (await response.json()) as { ok: boolean; code?: string; error?: string } };
}

function lastWakeText(svc: TestService): string | undefined {
  const row = svc.db.prepare('SELECT text FROM events WHERE run_id IS NULL ORDER BY rowid DESC LIMIT 1').get() as { text: string } | undefined;
  return row?.text;
}

describe('the charset a body declares', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ hooks: { presets: [{ name: 'github', secret: SECRET, debounce: false }] } });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('refuses a charset it does not decode with 415 instead of reading the bytes as UTF-8', async () => {
    const utf16 = Buffer.from('\ufeff{"text":"caf\u00e9"}', 'utf16le');
    for (const contentType of ['application/json; charset=utf-16', 'application/json;charset="UTF-16LE"', 'text/plain; charset=windows-1252', 'application/json; charset=iso-8859-2']) {
      const response = await wake(svc, contentType, utf16);
      expect([response.status, response.body.code], contentType).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      expect(response.body.error, contentType).toMatch(/^request body charset ".+" is not supported: send UTF-8 \(charset=utf-8, or none\)$/);
    }
    expect((await wake(svc, 'application/json; charset=utf-16', utf16)).body.error).toBe('request body charset "utf-16" is not supported: send UTF-8 (charset=utf-8, or none)');
  });

  it('reads UTF-8 declared in any case, quoted or not, or no charset at all', async () => {
    const body = Buffer.from('{"text":"caf\u00e9 \u2603"}', 'utf8');
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json; Charset="UTF-8"', 'application/json;charset=UTF8', 'text/plain; charset=utf-8']) {
      const response = await wake(svc, contentType, body);
      expect(response.status, contentType).toBe(200);
      expect(lastWakeText(svc), contentType).toContain('caf\u00e9 \u2603');
    }
  });

  it('takes US-ASCII and ISO-8859-1 bodies whose bytes are all ASCII (the same text in UTF-8), and refuses them otherwise', async () => {
    for (const charset of ['us-ascii', 'ISO-8859-1', 'latin1']) {
      const response = await wake(svc, `application/json; charset=${charset}`, Buffer.from(`{"text":"plain ${charset}"}`, 'latin1'));
      expect(response.status, charset).toBe(200);
      expect(lastWakeText(svc), charset).toContain(`plain ${charset}`);
    }
    const latin1 = await wake(svc, 'application/json; charset=iso-8859-1', Buffer.from('{"text":"caf\u00e9"}', 'latin1'));
    expect(latin1).toEqual({
      status: 415,
      body: { ok: false, code: 'UNSUPPORTED_MEDIA_TYPE', error: 'request body charset "iso-8859-1" is decoded only when every byte is ASCII: send UTF-8 (charset=utf-8, or none)' },
    });
  });

  it('refuses the charset of a signed body once the signature verified, and answers 401 before that', async () => {
    const body = JSON.stringify({ action: 'opened', issue: { number: 1, title: 't', html_url: 'https://github.com/a/b/issues/1' }, repository: { full_name: 'a/b' }, sender: { login: 'o' } });
    const headers = { 'x-github-event': 'issues' };
    const signed = await sendSignedAs(svc, 'github', body, { secret: SECRET, headers, contentType: 'application/json; charset=utf-16' });
    expect([signed.status, signed.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const unsigned = await sendSignedAs(svc, 'github', body, { secret: 'not-the-secret-0123456789', headers, contentType: 'application/json; charset=utf-16' });
    expect(unsigned.status).toBe(401);
    const utf8 = await sendSignedAs(svc, 'github', body, { secret: SECRET, headers, contentType: 'application/json; charset=UTF-8' });
    expect(utf8.status).toBe(202);
  });
});
