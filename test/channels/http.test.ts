import { afterEach, describe, expect, it } from 'vitest';
import { deliverText } from '../../src/channels/deliver.js';
import { detail, scrubUrls } from '../../src/channels/http.js';
import { mattermostChannel } from '../../src/channels/mattermost.js';
import { telegramChannel } from '../../src/channels/telegram.js';
import { recordingSleep, startFakeService, testDeps, type FakeService } from './fake-service.js';

describe('channel HTTP plumbing', () => {
  let service: FakeService | undefined;
  afterEach(async () => service?.close());

  it('retries a refused connection and reports the error code, never the URL with the token', async () => {
    service = await startFakeService(() => ({ status: 200 }));
    const baseUrl = service.baseUrl;
    await service.close();
    service = undefined;
    const channel = telegramChannel.create({ botToken: '1:TOKENSECRET', baseUrl }, testDeps());
    const { sleep, waits } = recordingSleep();
    const outcome = await deliverText(channel, '42', 'hi', { sleep, maxAttempts: 2 });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 2, reason: 'telegram: network error (ECONNREFUSED); gave up after 2 attempts' });
    expect(waits).toHaveLength(1);
    expect(JSON.stringify(outcome)).not.toContain('TOKENSECRET');
  });

  it('does not follow a redirect, so a token never travels to another location', async () => {
    service = await startFakeService((request) => (request.path === '/elsewhere' ? { status: 201, json: {} } : { status: 307, headers: { location: '/elsewhere' } }));
    const channel = mattermostChannel.create({ baseUrl: service.baseUrl, botToken: 'tok' }, testDeps());
    const outcome = await deliverText(channel, 'c1', 'hi');
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1, reason: 'mattermost: unexpected redirect (HTTP 307)' });
    expect(service.requests.map((request) => request.path)).toEqual(['/api/v4/posts']);
  });

  it("retries a proxy's HTML 502 and uses a readable reason", async () => {
    service = await startFakeService(() => ({ status: 502, text: '<html><body>Bad Gateway</body></html>' }));
    const channel = telegramChannel.create({ botToken: '1:x', baseUrl: service.baseUrl }, testDeps());
    const outcome = await deliverText(channel, '42', 'hi', { sleep: recordingSleep().sleep, maxAttempts: 2 });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 2, reason: 'telegram: Telegram refused the message (HTTP 502); gave up after 2 attempts' });
  });

  it('refuses an empty recipient without a request', async () => {
    service = await startFakeService(() => ({ status: 200 }));
    const channel = telegramChannel.create({ botToken: '1:x', baseUrl: service.baseUrl }, testDeps());
    expect(await deliverText(channel, ' ', 'hi')).toMatchObject({ status: 'failed', attempts: 1 });
    expect(service.requests).toHaveLength(0);
  });
});

describe('scrubUrls', () => {
  it('replaces every URL, whatever its scheme, and keeps the rest', () => {
    expect(scrubUrls('fetch https://api.example/bot123:secret/send failed; see ftp://x.y/z')).toBe('fetch <url> failed; see <url>');
  });
});

describe('detail', () => {
  it('removes URLs, folds whitespace and bounds the length of service error texts', () => {
    expect(detail('see\nhttps://example.com/bot1:SECRET/x  for more', 'x')).toBe('see <url> for more');
    expect(detail('x'.repeat(400), 'fallback')).toHaveLength(301);
    expect(detail(42, 'fallback')).toBe('fallback');
  });
});
