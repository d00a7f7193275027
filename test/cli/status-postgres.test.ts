import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { silentLogger } from '../../src/log.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { agentAcceptance, wakeAcceptance } from '../store/acceptances.js';

describe('hookgate status on a PostgreSQL store', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dir: string;
  let config: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'hookgate-status-pg-'));
    config = join(dir, 'hookgate.json5');
    writeFileSync(config, JSON.stringify({ hooks: { enabled: true, token: 'status-token-1' }, storage: { url: database.url, schema: 'hg' } }));
  }, 60_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  async function status(...args: string[]): Promise<{ code: number | undefined; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runCli(['status', '--config', config, ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {}, cwd: dir });
    return { code, out, err };
  }

  it('says the service has not run yet, and creates nothing, before the first start', async () => {
    const first = await status();
    expect(first.code).toBe(1);
    expect(first.err).toMatch(/^no Hookgate store in schema hg of postgres:\/\/hookgate@127\.0\.0\.1:\d+\/hg_\w+: the service has not run with this configuration yet\n$/);
    expect(first.err).not.toContain(new URL(database.url).password);
    expect(await status()).toMatchObject({ code: 1 });
  });

  it('reports the shared queue, naming the database without its password', async () => {
    const store = await openPostgresStore({ url: database.url, pool: 2, schema: 'hg' }, { logger: silentLogger(), idempotencyTtlMs: 60_000, role: 'service' });
    await store.ingress.accept(wakeAcceptance('one wake'));
    await store.ingress.accept(agentAcceptance('one run'));
    await store.close();
    const { code, out } = await status('--json');
    expect(code).toBe(0);
    const report = JSON.parse(out) as { store: string; events: { pending: number }; runs: { queued: number } };
    expect(report.store).toMatch(/^postgres:\/\/hookgate@127\.0\.0\.1:\d+\/hg_\w+$/);
    expect(report.events.pending).toBe(1);
    expect(report.runs.queued).toBe(1);
  });
});
