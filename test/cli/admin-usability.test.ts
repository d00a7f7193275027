import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBin, runCaptured } from '../helpers/cli.js';
import { post, startTestService } from '../helpers/service.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-admin-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function config(text: string): string {
  writeFileSync(join(dir, 'hookgate.json5'), text);
  writeFileSync(join(dir, 'ci.json'), '{"build":{"number":7}}');
  return join(dir, 'hookgate.json5');
}

const SECRET_OF_ANOTHER_MAPPING = `{
  hooks: { enabled: true, token: "t0ken-for-tests", mappings: [
    { id: "gh", match: { path: "github" }, signature: { scheme: "github", secret: "\${GH_SECRET}" }, messageTemplate: "push" },
    { id: "ci", match: { path: "ci" }, messageTemplate: "Build {{build.number}}" },
  ] },
  storage: { path: "./data/store.sqlite" },
}`;

describe('what a new admin hits', () => {
  it('4. try and status work when only the secret of an unrelated mapping is unset, with a warning naming it; check still refuses', async () => {
    const path = config(SECRET_OF_ANOTHER_MAPPING);
    const warning = 'warning: environment variable GH_SECRET is not set (used at /hooks/mappings/0/signature/secret); this command does not need it';
    const tried = await runCaptured(['try', 'ci', '--payload', 'ci.json', '--config', path], { cwd: dir });
    expect([tried.code, tried.stderr.trim()]).toEqual([0, warning]);
    const status = await runCaptured(['status', '--config', path], { cwd: dir });
    expect(status.stderr).toContain(warning);
    expect(status.stderr).toContain('the service has not run with this configuration yet'); // past the config, at the store
    const checked = await runCaptured(['check', '--config', path], { cwd: dir });
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('environment variable GH_SECRET is not set');
  });

  it('9. a mistyped preset name stops start-up and check with a "did you mean"', async () => {
    const path = config('{ gateway: { bind: "127.0.0.1", port: 0 }, hooks: { enabled: true, token: "t0ken-for-tests", presets: ["githb"] }, storage: { path: "./data/store.sqlite" } }');
    const hint = '/hooks/presets/0: unknown preset "githb"; did you mean "github"? (known: gmail, github,';
    const checked = await runCaptured(['check', '--config', path], { cwd: dir });
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(hint);
    const served = await runBin(['serve', '--config', path], { cwd: dir, timeoutMs: 30_000 });
    expect(served.code).not.toBe(0);
    expect(served.stderr).toContain(hint);
  });

  it('10. a token and mappings without hooks.enabled: check warns loudly, try says the endpoint is off', async () => {
    const path = config('{ hooks: { token: "t0ken-for-tests", mappings: [{ id: "ci", match: { path: "ci" }, messageTemplate: "Build {{build.number}}" }] } }');
    const off = 'hooks.enabled is not true although hooks.token and hooks.mappings are set: the webhook endpoints are OFF and every request to /hooks/… gets 404';
    const checked = await runCaptured(['check', '--config', path], { cwd: dir });
    expect(checked.stdout).toContain(`warning: ${off}`);
    const tried = await runCaptured(['try', 'ci', '--payload', 'ci.json', '--config', path], { cwd: dir });
    expect(tried.stdout).toContain(`note: ${off}`);
  });

  it('12. required fields refuse a payload without them (400 FIELD_MISSING); try flags a template that rendered only literal text', async () => {
    const mappings = [
      { id: 'strict', match: { path: 'strict' }, required: ['order.id', 'customer.name'], messageTemplate: 'Order {{order.id}} by {{customer.name}}' },
      { id: 'loose', match: { path: 'loose' }, messageTemplate: 'Order {{order.id}} by {{customer.name}}: {{count}} item(s)' },
    ];
    const path = config(JSON.stringify({ hooks: { enabled: true, token: 't0ken-for-tests', mappings } }));
    writeFileSync(join(dir, 'partial.json'), '{"order":{"id":"A1"},"customer":{"name":""}}');
    const loose = await runCaptured(['try', 'loose', '--payload', 'ci.json', '--config', path], { cwd: dir });
    expect(loose.stdout).toContain('note: template messageTemplate rendered only its literal text: none of its fields are in this payload');
    const strict = await runCaptured(['try', 'strict', '--payload', 'partial.json', '--config', path], { cwd: dir });
    expect([strict.code, strict.stdout]).toEqual([1, expect.stringContaining('error 400 FIELD_MISSING: field "customer.name" is missing (mapping "strict" requires it)')]);
    const svc = await startTestService({ hooks: { mappings } });
    try {
      const refused = await post(`${svc.hooksUrl}/strict`, { order: { id: 'A1' } });
      expect([refused.status, refused.body]).toEqual([400, { ok: false, code: 'FIELD_MISSING', error: 'field "customer.name" is missing (mapping "strict" requires it)' }]);
      expect((await post(`${svc.hooksUrl}/strict`, { order: { id: 'A1' }, customer: { name: 'Ada' } })).status).toBe(202);
    } finally {
      await svc.close();
    }
  });

  it('1. a reload that changes models.providers or channels says a restart is needed (log, state, status)', async () => {
    const svc = await startTestService({}, { dir, configFile: true });
    try {
      const raw = JSON.parse(readFileSync(join(dir, 'hookgate.json5'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify({ ...raw, models: { providers: { mock: { api: 'echo' } } } }));
      expect(await svc.service.reload()).toBe(true);
      expect(svc.service.reloadState().restartNeeded).toEqual(['models.providers']);
      expect(svc.logs.filter((line) => line['event'] === 'config.restart_needed').at(-1)).toMatchObject({ sections: ['models.providers'] });
      const status = await runCaptured(['status', '--config', join(dir, 'hookgate.json5')], { cwd: dir });
      expect(status.stdout).toContain('RESTART NEEDED: models.providers changed');
    } finally {
      await svc.close();
    }
  });

  it('5. status with a broken config file reports the store and the running server first, then the file\'s error', async () => {
    const svc = await startTestService({}, { dir, configFile: true });
    try {
      writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify({ hooks: { enabeld: true }, storage: { path: 'hookgate.sqlite' } }));
      const status = await runCaptured(['status', '--config', join(dir, 'hookgate.json5')], { cwd: dir });
      expect(status.code).toBe(1);
      expect(status.stdout).toContain(`server: running at ${svc.url}`);
      expect(status.stdout).toContain('the config file has problems (the running server keeps the config it last loaded):');
      expect(status.stderr).toContain('/hooks/enabeld: unknown key; did you mean "enabled"?');
    } finally {
      await svc.close();
    }
  });
});
