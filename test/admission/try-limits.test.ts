import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTry } from '../../src/commands/try.js';
import { silentLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';

const CONFIG = `{
  hooks: { enabled: true, token: "hook-token-for-try",
    mappings: [{ id: "sentry", match: { path: "sentry" }, messageTemplate: "issue {{issue}}",
      rateLimit: { limit: 1, periodSeconds: 3600, key: "{{project}}", over: "reject" }, concurrency: { limit: 1, key: "{{issue}}" } }] },
  storage: { path: "./store.sqlite" },
}`;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function tryText(): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runTry(['sentry', '--payload', 'payload.json', '--config', join(dir, 'hookgate.json5')], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, cwd: dir });
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return stdout;
}

describe('hookgate try and limits', () => {
  it("shows each limit's key for the delivery and the rate limit's verdict from the store, counting nothing", async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-try-limits-'));
    writeFileSync(join(dir, 'hookgate.json5'), CONFIG);
    writeFileSync(join(dir, 'payload.json'), JSON.stringify({ project: 'web', issue: 42 }));
    expect(await tryText()).toContain('  rateLimit key "web": not checked (no store)');

    const store = openSqliteStore({ path: join(dir, 'store.sqlite'), synchronous: 'normal' }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service' });
    try {
      const text = await tryText();
      expect(text).toContain('  rateLimit key "web": admitted');
      expect(text).toContain('  concurrency key "42": admitted; at most 1 run(s) of this key execute at once');
      expect(await tryText()).toContain('  rateLimit key "web": admitted'); // try counted nothing
      await store.limits.rateHit('rate:sentry:web', { limit: 1, periodMs: 3_600_000 }, Date.now());
      expect(await tryText()).toMatch(/ {2}rateLimit key "web": rejected \(a delivery conforms again in \d+ s\)/);
    } finally {
      await store.close();
    }
  });
});
