import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runStatus } from '../../src/commands/status.js';
import { until } from '../helpers/wait.js';
import { sandboxWorkerPids } from '../helpers/sandbox-pids.js';
import { isAlive } from '../sandbox/helpers.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

const ADMIN_TOKEN = 'admin-token-for-metrics-0123456789';

/** A wake mapping whose text comes from transforms/t.js; the text shows which code served. */
const MAPPING = { id: 't', match: { path: 't' }, action: 'wake', allowUnsafeExternalContent: true, transform: { module: 't.js' } };

function transformSource(text: string): string {
  return `export default () => ({ text: '${text}' });\n`;
}

/**
 * The real service, the real watcher (transformsDir and the config file's directory), the real
 * sandbox. A step waits for its reload to be logged, then checks which code serves; the reload
 * count is checked exactly at every step, so a change that reloaded twice fails the next step.
 */
describe('hot reload over a real socket', () => {
  let svc: TestService;
  let dir: string;
  afterEach(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(first = transformSource('v1'), limits: Record<string, number> = { workers: 1, timeoutMs: 10_000 }): Promise<void> {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-reload-'));
    mkdirSync(join(dir, 'transforms'));
    writeFileSync(join(dir, 'transforms', 't.js'), first);
    svc = await startTestService(
      { gateway: { auth: { token: ADMIN_TOKEN } }, hooks: { transformsDir: './transforms', transformLimits: limits, mappings: [MAPPING] } },
      { dir, configFile: true },
    );
  }
  const file = (name: string) => join(dir, 'transforms', name);
  const reloadLines = () => svc.logs.filter((line) => line['event'] === 'config.reloaded' || line['event'] === 'config.reload_failed');
  const served = async (): Promise<string> => {
    const response = await post(`${svc.hooksUrl}/t`, {});
    expect(response.status).toBe(200);
    const row = svc.db.prepare("SELECT text FROM events WHERE hook = 't' ORDER BY id DESC LIMIT 1").get() as { text: string };
    return row.text;
  };
  /** Makes a change, waits for reload number `count` and checks it is the only one since the last step. */
  async function reloadsOnce(count: number, change: () => void): Promise<void> {
    expect(reloadLines()).toHaveLength(count - 1);
    change();
    await until(() => reloadLines().length >= count, 30_000);
  }

  it('reloads exactly once for each way editors save, and the new code serves afterwards', { timeout: 120_000 }, async () => {
    await start();
    expect(await served()).toBe('v1');
    await reloadsOnce(1, () => writeFileSync(file('t.js'), transformSource('v2')));
    expect(await served()).toBe('v2');
    await reloadsOnce(2, () => execFileSync('sed', ['-i', 's/v2/v3/', file('t.js')]));
    expect(await served()).toBe('v3');
    await reloadsOnce(3, () => writeFileSync(file('t.js'), transformSource('v4'))); // in place, after the rename
    expect(await served()).toBe('v4');
    await reloadsOnce(4, () => {
      writeFileSync(file('.t.js.swp'), transformSource('v5'));
      renameSync(file('.t.js.swp'), file('t.js'));
    });
    expect(await served()).toBe('v5');
    await reloadsOnce(5, () => {
      unlinkSync(file('t.js'));
      writeFileSync(file('t.js'), transformSource('v6'));
    });
    expect(await served()).toBe('v6');
    await reloadsOnce(6, () => writeFileSync(file('t.js'), transformSource('v7')));
    expect(await served()).toBe('v7');
    expect(reloadLines().map((line) => line['event'])).toEqual(Array(6).fill('config.reloaded'));
  });

  it('reloads exactly once for a new module file, a new import, a new subdirectory import and edits inside it', { timeout: 120_000 }, async () => {
    await start();
    await reloadsOnce(1, () => writeFileSync(file('words.js'), "export const word = 'v2';\n"));
    expect(await served()).toBe('v1');
    await reloadsOnce(2, () => writeFileSync(file('t.js'), "import { word } from './words.js';\nexport default () => ({ text: word });\n"));
    expect(await served()).toBe('v2');
    await reloadsOnce(3, () => {
      mkdirSync(join(dir, 'transforms', 'lib'));
      writeFileSync(file('lib/word.js'), "export const word = 'v3';\n");
      writeFileSync(file('t.js'), "import { word } from './lib/word.js';\nexport default () => ({ text: word });\n");
    });
    expect(await served()).toBe('v3');
    await reloadsOnce(4, () => execFileSync('sed', ['-i', 's/v3/v4/', file('lib/word.js')]));
    expect(await served()).toBe('v4');
    await reloadsOnce(5, () => writeFileSync(file('lib/word.js'), "export const word = 'v5';\n"));
    expect(await served()).toBe('v5');
    await reloadsOnce(6, () => writeFileSync(file('t.js'), transformSource('v6')));
    expect(await served()).toBe('v6');
    expect(reloadLines().map((line) => line['event'])).toEqual(Array(6).fill('config.reloaded'));
  });

  it('answers every request in flight during a reload with 200 from the code it started on, not 503', { timeout: 120_000 }, async () => {
    await start(transformSource('v1'), { workers: 1, timeoutMs: 30_000 });
    // A stopped worker is a transform still running: the requests stay in flight until SIGCONT.
    const old = sandboxWorkerPids();
    expect(old).toHaveLength(1);
    for (const pid of old) process.kill(pid, 'SIGSTOP');
    try {
      const inFlight = Array.from({ length: 3 }, () => post(`${svc.hooksUrl}/t`, {}));
      await reloadsOnce(1, () => writeFileSync(file('t.js'), transformSource('v2')));
      expect(await served()).toBe('v2');
      for (const pid of old) expect(isAlive(pid), 'the old worker was killed under its requests').toBe(true);
      for (const pid of old) process.kill(pid, 'SIGCONT');
      expect((await Promise.all(inFlight)).map((response) => response.status)).toEqual([200, 200, 200]);
      const texts = svc.db.prepare("SELECT text FROM events WHERE hook = 't' ORDER BY id").all() as Array<{ text: string }>;
      expect(texts.map((row) => row.text).sort()).toEqual(['v1', 'v1', 'v1', 'v2']);
      await until(() => old.every((pid) => !isAlive(pid)), 15_000);
    } finally {
      for (const pid of old) if (isAlive(pid)) process.kill(pid, 'SIGCONT');
    }
  });

  it('serves the fixed module after a broken one is fixed by cp or cat >, and the last reload line says it succeeded', { timeout: 120_000 }, async () => {
    await start();
    await reloadsOnce(1, () => execFileSync('sed', ['-i', 's/v1.*;/v2 (;/', file('t.js')]));
    expect(reloadLines().at(-1)?.['event']).toBe('config.reload_failed');
    expect(await served()).toBe('v1');
    writeFileSync(join(dir, 'fixed.js'), transformSource('v3'));
    await reloadsOnce(2, () => execFileSync('cp', [join(dir, 'fixed.js'), file('t.js')]));
    expect(reloadLines().at(-1)?.['event']).toBe('config.reloaded');
    expect(await served()).toBe('v3');
    await reloadsOnce(3, () => execFileSync('sed', ['-i', 's/v3.*;/v4 (;/', file('t.js')]));
    expect(await served()).toBe('v3');
    await reloadsOnce(4, () => execSync(`cat > '${file('t.js')}' <<'EOF'\n${transformSource('v5')}EOF\n`));
    expect(reloadLines().at(-1)?.['event']).toBe('config.reloaded');
    expect(svc.service.reloadState().reloadFailed).toBe(false);
    expect(await served()).toBe('v5');
  });

  it('shows a failed reload in /readyz (still 200), /metrics and hookgate status, without a secret, until a reload succeeds', { timeout: 120_000 }, async () => {
    await start();
    const started = svc.service.reloadState();
    expect(started).toMatchObject({ reloadFailed: false, lastError: null });
    await reloadsOnce(1, () => writeFileSync(file('t.js'), 'export default () => ({ text: ;\n'));

    const ready = await fetch(`${svc.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { ok: boolean; config: Record<string, unknown> };
    expect(body.ok).toBe(true);
    // /readyz (no token) says that and when, never why: the reason names mappings and files.
    expect(body.config).toEqual({ reloadFailed: true, lastReloadAt: expect.any(String), lastSuccessAt: started.lastSuccessAt });
    const state = svc.service.reloadState();
    expect(state).toEqual({ ...body.config, lastError: expect.any(String) });
    expect(state.lastError).toContain(`mapping "t": transform "t.js" (`);
    expect(state.lastError).toContain(`/transforms/t.js) cannot be loaded: `);

    const metrics = async () => {
      const response = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return response.text();
    };
    const text = await metrics();
    expect(text).toMatch(/^hookgate_config_reload_failed 1$/m);
    expect(text).toContain(`hookgate_config_last_reload_success_timestamp_seconds ${Date.parse(started.lastSuccessAt) / 1000}`);

    const status = await statusOf(join(dir, 'hookgate.json5'), ['--json']);
    await until(async () => JSON.parse((await statusOf(join(dir, 'hookgate.json5'), ['--json'])).out).config?.reloadFailed === true);
    const report = JSON.parse((await statusOf(join(dir, 'hookgate.json5'), ['--json'])).out) as { config: unknown };
    expect(report.config).toEqual(state);
    const human = await statusOf(join(dir, 'hookgate.json5'), []);
    expect(human.out).toContain(`config reload: FAILED at ${String(body.config['lastReloadAt'])}, the mappings loaded at ${started.lastSuccessAt} stay in force — /hooks/mappings/0/transform: mapping "t"`);
    for (const output of [JSON.stringify(body), status.out, human.out, text]) {
      expect(output).not.toContain(TEST_TOKEN);
      expect(output).not.toContain(ADMIN_TOKEN);
    }

    await reloadsOnce(2, () => writeFileSync(file('t.js'), transformSource('v2')));
    expect(await metrics()).toMatch(/^hookgate_config_reload_failed 0$/m);
    const after = (await (await fetch(`${svc.url}/readyz`)).json()) as { config: Record<string, unknown> };
    expect(after.config).toMatchObject({ reloadFailed: false });
    expect(after.config).not.toHaveProperty('lastError');
    expect(svc.service.reloadState().lastError).toBeNull();
    expect(after.config['lastSuccessAt']).toBe(after.config['lastReloadAt']);
    await until(async () => (await statusOf(join(dir, 'hookgate.json5'), [])).out.includes('config reload: ok, mappings loaded at'));
  });
});

async function statusOf(configPath: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runStatus(['--config', configPath, ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {}, cwd: tmpdir() });
  return { code, out, err };
}
