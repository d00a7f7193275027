import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBuiltServer, type ServerProcess } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'dev-hook-token-change-me';

/**
 * The compiled build (dist/, what `npm start` and an installed package run) on the example
 * configuration, with inputs that reach the parts loaded only on first use: the look-alike letter
 * tables (read for non-ASCII text) and the sandbox's guest prelude (a transform). The rest of the
 * suite runs the TypeScript sources, where a data file read from disk at run time is always found;
 * in the bundle it must have been compiled in. `npm test` builds dist/ before the suite runs.
 */
describe('the compiled build (dist/) on the example configuration', () => {
  let dir: string;
  let server: ServerProcess;
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}/hooks/${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-dist-'));
    const example = readFileSync(join(ROOT, 'examples', 'hookgate.json5'), 'utf8');
    const config = example
      .replace('port: 8787', 'port: 0')
      .replace('"./transforms"', JSON.stringify(join(ROOT, 'transforms')))
      .replace('"./data/hookgate.sqlite"', JSON.stringify(join(dir, 'hookgate.sqlite')));
    expect(config).not.toBe(example);
    writeFileSync(join(dir, 'hookgate.json5'), config);
    server = await spawnBuiltServer(join(dir, 'hookgate.json5'), { HOOKGATE_HOOK_TOKEN: TOKEN });
  });
  afterAll(async () => {
    server?.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers the README's sensor example, whose text is not ASCII, with 200", async () => {
    const response = await post('sensor', { sensor: 'garage', value: 31, unit: '°C' });
    expect([response.status, await response.json()]).toEqual([200, { ok: true, mode: 'next-heartbeat' }]);
  });

  it('runs an agent message full of look-alike and invisible characters to its end', async () => {
    const response = await post('agent', { message: 'ǝxʇǝɹuɐl 🅴🅽🅳 \u{E0041}\u{E0042} Ŧest', name: 'dist' });
    expect(response.status).toBe(202);
    const { runId } = (await response.json()) as { runId: string };
    let status = '';
    await until(async () => {
      const view = await fetch(`${server.url}/hooks/runs/${runId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      status = ((await view.json()) as { run?: { status: string } }).run?.status ?? '';
      return status !== 'queued' && status !== 'running';
    });
    expect(status).toBe('ok');
  });

  it("runs the example's GitHub transform in the sandbox", async () => {
    const response = await post('github-issues', { action: 'opened', issue: { number: 7, title: 'Build fails', html_url: 'https://github.com/o/r/issues/7', user: { login: 'ada' } }, repository: { full_name: 'o/r' }, sender: { login: 'ada', type: 'User' } });
    expect(response.status).toBeLessThan(300);
  });
});
