import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until as untilWithin } from '../../helpers/wait.js';
import { formatStatus, readStatus } from '../../../src/commands/status.js';
import { post, type TestService } from '../../helpers/service.js';
import { startFakeGoogle, type FakeGoogle } from './fake-google.js';
import { gmailHarness, REFRESH_TOKEN, runsOf, storedHistoryId, type GmailHarness } from './support.js';

/** The machine may be busy: a generous bound, still failing a test whose condition never comes. */
const until = (check: () => boolean) => untilWithin(check, 30_000);

describe('the Gmail watcher in pull mode', () => {
  let fake: FakeGoogle;
  let harness: GmailHarness;
  let svc: TestService | undefined;

  beforeEach(async () => {
    fake = await startFakeGoogle();
    harness = await gmailHarness(fake);
  });
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
    await fake.close();
    harness.cleanup();
  });

  const subjects = (service: TestService) => runsOf(service).map((run) => /Subject: (.*)/.exec(run.message)?.[1]);

  it('turns each new message into one agent run and acknowledges the notification only after the commit', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    expect(fake.watches[0]).toEqual({ topicName: 'projects/demo/topics/gmail-watch', labelIds: ['INBOX'], labelFilterBehavior: 'include' });
    fake.addMessage({ from: 'Ada <ada@example.com>', subject: 'Engine notes', text: 'Notes on the engine.\nBest, Ada' });
    fake.addMessage({ from: 'Bob <bob@example.com>', subject: 'Lunch', html: '<p>Lunch at <b>noon</b>?</p>' });
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    const runs = runsOf(svc);
    expect(runs).toHaveLength(2);
    expect(runs[0]?.name).toBe('Gmail');
    expect(runs[0]?.message).toContain('New email from Ada <ada@example.com>');
    expect(runs[0]?.message).toContain('Notes on the engine.\nBest, Ada');
    expect(runs[1]?.message).toContain('Lunch at noon?');
    expect(runs[1]?.message).not.toContain('<b>');
    expect(storedHistoryId(svc, fake.account)).toBe(String(fake.historyId));
    expect((await readStatus(await svc.openPort(), 'store')).gmail).toEqual([
      { account: fake.account, mode: 'pull', historyId: String(fake.historyId), watchExpiresAt: expect.any(String), lastError: null },
    ]);
    const metrics = await svc.service.metrics.render();
    expect(metrics).toMatch(/hookgate_gmail_messages_total\{outcome="admitted"\} 2/);
    expect(metrics).toMatch(/hookgate_gmail_notifications_total 1/);
    expect(metrics).toMatch(/hookgate_gmail_watch_expiry_seconds \d+/);
  });

  it('applies a gmail mapping\'s rateLimit: past it a message is handled with nothing stored, and counted as rate-limited', async () => {
    const limited = { id: 'gmail-limited', match: { path: 'gmail' }, action: 'agent', messageTemplate: 'mail {{messages[0].subject}}', rateLimit: { limit: 2, periodSeconds: 3600 } };
    svc = await harness.start({}, { mappings: [limited] });
    await until(() => fake.watches.length === 1);
    for (const subject of ['one', 'two', 'three', 'four']) fake.addMessage({ from: 'Ada <ada@example.com>', subject, text: subject });
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    expect(runsOf(svc).map((run) => /\nmail (\w+)\n/.exec(run.message)?.[1])).toEqual(['one', 'two']);
    const metrics = await svc.service.metrics.render();
    expect(metrics).toMatch(/hookgate_gmail_messages_total\{outcome="admitted"\} 2/);
    expect(metrics).toMatch(/hookgate_gmail_messages_total\{outcome="rate-limited"\} 2/);
    expect(metrics).toMatch(/hookgate_hook_skipped_total\{mapping="gmail-limited",reason="rate-limit"\} 2/);
  });

  it('keeps a notification unacknowledged while the store refuses, and admits it once the store is back', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    await svc.faults!.pragma('query_only', true);
    fake.addMessage({ from: 'a@example.com', subject: 'Held back', text: 'x' });
    fake.publishNotification();
    await until(() => svc!.logs.some((line) => line['event'] === 'gmail.error'));
    expect(fake.unacknowledged()).toBe(1);
    expect(runsOf(svc)).toHaveLength(0);
    await svc.faults!.pragma('query_only', false);
    fake.expireAckDeadlines(); // Pub/Sub delivers it again
    await until(() => fake.unacknowledged() === 0);
    expect(subjects(svc)).toEqual(['Held back']);
  });

  it('admits a message once when its notification is delivered twice', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    fake.addMessage({ from: 'a@example.com', subject: 'Once', text: 'x' });
    fake.publishNotification();
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    expect(subjects(svc)).toEqual(['Once']);
  });

  it('falls back to the newest messages when the stored history is gone, skipping those admitted before', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    fake.addMessage({ from: 'a@example.com', subject: 'First', text: 'x' });
    fake.addMessage({ from: 'a@example.com', subject: 'Second', text: 'x' });
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    fake.oldestHistoryId = fake.historyId + 1; // Gmail dropped the history the watcher would resume from
    fake.addMessage({ from: 'a@example.com', subject: 'Third', text: 'x' });
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    expect(subjects(svc)).toEqual(['First', 'Second', 'Third']);
    expect(svc.logs.some((line) => line['event'] === 'gmail.history_reset')).toBe(true);
    expect(storedHistoryId(svc, fake.account)).toBe(String(fake.historyId));
  });

  it('loses nothing and admits nothing twice across a restart in the middle of a notification', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    fake.addMessage({ from: 'a@example.com', subject: 'Before the crash', text: 'x' });
    const second = fake.addMessage({ from: 'a@example.com', subject: 'After the restart', text: 'y' });
    fake.failures.set(`GET /gmail/v1/users/me/messages/${second.id}`, Array(12).fill(503));
    fake.publishNotification();
    await until(() => runsOf(svc!).length === 1 && svc!.logs.some((line) => line['event'] === 'gmail.error'));
    const historyBefore = storedHistoryId(svc, fake.account);
    await svc.close();
    expect(fake.unacknowledged()).toBe(1);
    expect(historyBefore).not.toBe(String(fake.historyId)); // not advanced past the unadmitted message

    fake.failures.clear();
    await until(() => fake.openPulls === 0); // the stopped service's pull is gone: it cannot take the redelivery
    fake.expireAckDeadlines();
    svc = await harness.start();
    await until(() => fake.unacknowledged() === 0 && runsOf(svc!).length >= 2);
    expect(subjects(svc)).toEqual(['Before the crash', 'After the restart']);
    expect(storedHistoryId(svc, fake.account)).toBe(String(fake.historyId));
  });

  it('retries Google 429 and 503 answers with backoff instead of dropping the notification', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    fake.failures.set('GET /gmail/v1/users/me/history', [429, 503]);
    fake.addMessage({ from: 'a@example.com', subject: 'Eventually', text: 'x' });
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    expect(subjects(svc)).toEqual(['Eventually']);
    expect(fake.calls.filter((call) => call === 'GET /gmail/v1/users/me/history')).toHaveLength(3);
  });

  it('refreshes the access token from the stored refresh token when Google refuses the old one', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    expect(fake.tokenRequests).toHaveLength(1);
    expect(fake.tokenRequests[0]?.get('grant_type')).toBe('refresh_token');
    expect(fake.tokenRequests[0]?.get('refresh_token')).toBe(REFRESH_TOKEN);
    fake.invalidTokens.add('ya29.fake-1');
    fake.addMessage({ from: 'a@example.com', subject: 'After refresh', text: 'x' });
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    expect(subjects(svc)).toEqual(['After refresh']);
    expect(fake.tokenRequests.length).toBeGreaterThanOrEqual(2);
    expect(svc.rawLogs()).not.toContain(REFRESH_TOKEN);
    expect(svc.rawLogs()).not.toContain('ya29.fake');
  });

  it('stops only the watcher with one clear error when the grant is revoked, keeping the notification', async () => {
    svc = await harness.start();
    await until(() => fake.watches.length === 1);
    fake.revoked.add(REFRESH_TOKEN);
    fake.invalidTokens.add('ya29.fake-1');
    fake.addMessage({ from: 'a@example.com', subject: 'Never lost', text: 'x' });
    fake.publishNotification();
    await until(() => svc!.logs.some((line) => line['event'] === 'gmail.stopped'));
    const errors = svc.logs.filter((line) => line['event'] === 'gmail.error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.['err']).toBe(`Gmail access for ${fake.account} was revoked or has expired: run \`hookgate gmail setup\` again`);
    expect(fake.unacknowledged()).toBe(1);
    const row = svc.db.prepare('SELECT last_error FROM gmail_state').get() as { last_error: string };
    expect(row.last_error).toContain('hookgate gmail setup');
    expect(formatStatus(await readStatus(await svc.openPort(), 'store'))).toMatch(
      /gmail me@example\.com: pull, history \d+, watch expires \d{4}-\d\d-\d\dT[^,]+, last error: Gmail access for me@example\.com was revoked/,
    );
    expect((await post(`${svc.hooksUrl}/wake`, { text: 'still here' })).status).toBe(200);
    expect(svc.rawLogs()).not.toContain(REFRESH_TOKEN);
  });

  it('renews users.watch every renewEveryMinutes on its clock', async () => {
    svc = await harness.start({ renewEveryMinutes: 90 });
    await until(() => fake.watches.length === 1 && harness.timers.pending.length === 1);
    expect(harness.timers.fireNext()).toBe(90 * 60_000);
    await until(() => fake.watches.length === 2);
    await until(() => harness.timers.pending.filter((timer) => !timer.cancelled).length === 1);
    expect(harness.timers.fireNext()).toBe(90 * 60_000);
    await until(() => fake.watches.length === 3);
  });

  it('retries a failed renewal within minutes and names the missing permission', async () => {
    fake.refusals.set('POST /gmail/v1/users/me/watch', {
      status: 403,
      googleStatus: 'PERMISSION_DENIED',
      message: 'User not authorized to perform this action.',
    });
    svc = await harness.start({ renewEveryMinutes: 720 });
    await until(() => svc!.logs.some((line) => line['event'] === 'gmail.error'));
    const error = svc.logs.find((line) => line['event'] === 'gmail.error');
    expect(error?.['err']).toContain('403 PERMISSION_DENIED: User not authorized to perform this action.');
    await until(() => harness.timers.pending.length === 1);
    expect(harness.timers.pending[0]?.ms).toBe(5 * 60_000);
    expect(await svc.service.metrics.render()).toMatch(/hookgate_gmail_api_errors_total\{api="gmail"\} 1/);
    fake.refusals.clear();
    harness.timers.fireNext();
    await until(() => fake.watches.length === 1);
  });
});
