import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCredentials } from '../../../src/sources/gmail/credentials.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import type { SetTimer } from '../../../src/sources/gmail/watcher.js';
import type { FakeGoogle } from './fake-google.js';

export const REFRESH_TOKEN = '1//refresh-token-secret-value';

/** Timers the watcher sets, fired by the test (the watch renewal's clock). */
export interface ManualTimers {
  setTimer: SetTimer;
  pending: { ms: number; fn: () => void; cancelled: boolean }[];
  /** Fires the newest timer not yet fired or cancelled; returns its delay. */
  fireNext(): number;
}

export function manualTimers(): ManualTimers {
  const pending: ManualTimers['pending'] = [];
  return {
    pending,
    setTimer(ms, fn) {
      const timer = { ms, fn, cancelled: false };
      pending.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    fireNext() {
      const timer = pending.filter((item) => !item.cancelled).at(-1);
      if (timer === undefined) throw new Error('no timer pending');
      timer.cancelled = true;
      timer.fn();
      return timer.ms;
    },
  };
}

export interface GmailHarness {
  dir: string;
  credentialsFile: string;
  gmailConfig(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** `hooks`: more of the hooks block (e.g. a mapping of its own on the gmail path). */
  start(overrides?: Record<string, unknown>, hooks?: Record<string, unknown>): Promise<TestService>;
  timers: ManualTimers;
  cleanup(): void;
}

/** A temp dir with stored credentials and a service factory whose Gmail endpoints are the fake. */
export async function gmailHarness(fake: FakeGoogle): Promise<GmailHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-gmail-'));
  const credentialsFile = join(dir, 'gmail-credentials.json');
  await writeCredentials(credentialsFile, { type: 'authorized_user', client_id: 'client-id.apps.googleusercontent.com', client_secret: 'client-secret-value', refresh_token: REFRESH_TOKEN, account: fake.account });
  const timers = manualTimers();
  const gmailConfig = (overrides: Record<string, unknown> = {}) => ({
    enabled: true,
    account: fake.account,
    topic: 'projects/demo/topics/gmail-watch',
    subscription: 'projects/demo/subscriptions/gmail-watch-hookgate',
    mode: 'pull',
    credentialsFile,
    endpoints: { gmail: fake.url, pubsub: fake.url, oauthToken: `${fake.url}/token`, oidcCerts: `${fake.url}/oauth2/v3/certs` },
    ...overrides,
  });
  return {
    dir,
    credentialsFile,
    timers,
    gmailConfig,
    start: (overrides = {}, hooks = {}) =>
      startTestService(
        { hooks: { presets: ['gmail'], gmail: gmailConfig(overrides), ...hooks } },
        { dir, faults: true, gmail: { setTimer: timers.setTimer, delay: () => new Promise((resolve) => setImmediate(resolve)) } },
      ),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function runsOf(svc: TestService): { name: string; message: string }[] {
  const rows = svc.db.prepare("SELECT name, action FROM runs WHERE hook = 'gmail' ORDER BY created_at, run_id").all() as { name: string; action: string }[];
  return rows.map((row) => ({ name: row.name, message: (JSON.parse(row.action) as { message: string }).message }));
}

export function storedHistoryId(svc: TestService, account: string): string | undefined {
  const row = svc.db.prepare('SELECT history_id FROM gmail_state WHERE account = ?').get(account) as { history_id: string | null } | undefined;
  return row?.history_id ?? undefined;
}
