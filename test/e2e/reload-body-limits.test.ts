import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.js';
import { post, startTestService, type TestService } from '../helpers/service.js';

/** A mapping's maxBodyBytes is reloadable config: the per-path limit follows a hot reload. */
describe('body limits across a hot reload', () => {
  let svc: TestService | undefined;
  let dir: string;
  afterEach(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a mapping\'s new maxBodyBytes from the reload on', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-reload-limits-'));
    const mapping = { id: 'big', match: { path: 'big' }, action: 'wake', textTemplate: 'a large note arrived' };
    svc = await startTestService({ hooks: { maxBodyBytes: 4096, mappings: [mapping] } }, { dir, configFile: true });
    const service = svc;
    const body = { note: 'x'.repeat(8000) };
    expect((await post(`${service.hooksUrl}/big`, body)).status).toBe(413);
    const path = join(dir, 'hookgate.json5');
    const config = JSON.parse(readFileSync(path, 'utf8')) as { hooks: { mappings: Array<Record<string, unknown>> } };
    config.hooks.mappings = [{ ...mapping, maxBodyBytes: 65_536 }];
    writeFileSync(path, JSON.stringify(config, null, 2));
    await until(() => service.logs.some((line) => line['event'] === 'config.reloaded'), 30_000);
    expect((await post(`${service.hooksUrl}/big`, body)).status).toBe(200);
    // Other paths keep hooks.maxBodyBytes.
    expect((await post(`${service.hooksUrl}/wake`, { text: 'x'.repeat(8000) })).status).toBe(413);
  });
});
