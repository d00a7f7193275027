import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { defaultHookUrl, runProblem, startForegroundWatcher } from '../../../src/commands/gmail-run.js';
import { createLogger } from '../../../src/log.js';
import { startTestService, TEST_TOKEN, type TestService } from '../../helpers/service.js';
import { until as untilWithin } from '../../helpers/wait.js';
import { startFakeGoogle, type FakeGoogle } from './fake-google.js';
import { gmailHarness, runsOf, type GmailHarness } from './support.js';

const until = (check: () => boolean) => untilWithin(check, 30_000);

describe('hookgate gmail run (the watcher beside an ingress elsewhere)', () => {
  let fake: FakeGoogle;
  let harness: GmailHarness;
  let ingress: TestService;
  let running: Awaited<ReturnType<typeof startForegroundWatcher>> | undefined;

  beforeEach(async () => {
    fake = await startFakeGoogle();
    harness = await gmailHarness(fake);
    ingress = await startTestService({ hooks: { presets: ['gmail'] } }, { faults: true });
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    await ingress.close();
    await fake.close();
    harness.cleanup();
  });

  const watcherConfig = (gmail: Record<string, unknown> = {}) =>
    resolveConfig(
      { hooks: { enabled: true, token: TEST_TOKEN, presets: ['gmail'], gmail: harness.gmailConfig({ enabled: false, ...gmail }) }, storage: { path: join(harness.dir, 'watcher.sqlite') } },
      { configDir: harness.dir },
    );

  let lines: string[];
  const start = async () => {
    lines = [];
    running = await startForegroundWatcher(watcherConfig(), {
      logger: createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } }),
      url: `${ingress.hooksUrl}/gmail`,
      setTimer: harness.timers.setTimer,
      delay: () => new Promise((resolve) => setImmediate(resolve)),
    });
    return running.watcher.start();
  };

  it('posts each new message to the hook with the hook token, once, and acknowledges after the 2xx', async () => {
    await start();
    fake.addMessage({ from: 'Ada <ada@example.com>', subject: 'From afar', text: 'hello' });
    fake.publishNotification();
    await until(() => fake.unacknowledged() === 0);
    expect(runsOf(ingress).map((run) => run.message)).toEqual([expect.stringContaining('Subject: From afar')]);
  });

  it('keeps the notification while the ingress refuses, then delivers it', async () => {
    await start();
    await ingress.faults!.pragma('query_only', true);
    fake.addMessage({ from: 'a@example.com', subject: 'Later', text: 'x' });
    fake.publishNotification();
    await until(() => lines.some((line) => line.includes('"event":"gmail.error"') && line.includes('→ 503 STORE_UNAVAILABLE')));
    expect(fake.unacknowledged()).toBe(1);
    expect(runsOf(ingress)).toHaveLength(0);
    await ingress.faults!.pragma('query_only', false);
    fake.expireAckDeadlines();
    await until(() => fake.unacknowledged() === 0 && runsOf(ingress).length === 1);
    expect(runsOf(ingress)).toHaveLength(1);
  });

  it('refuses push mode and a config without setup, and targets loopback for a wildcard bind', () => {
    expect(runProblem(watcherConfig({ mode: 'push', push: { audience: 'https://x.example.com/hooks/gmail/push' } }))).toContain('`gmail run` only pulls');
    expect(runProblem(resolveConfig({ hooks: { enabled: true, token: TEST_TOKEN } }, { configDir: harness.dir }))).toContain('run `hookgate gmail setup` first');
    expect(defaultHookUrl(resolveConfig({ gateway: { bind: '0.0.0.0', port: 9000 } }, { configDir: harness.dir }))).toBe('http://127.0.0.1:9000/hooks/gmail');
  });
});
