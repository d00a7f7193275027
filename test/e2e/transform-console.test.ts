import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestService, type TestService } from '../helpers/service.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/transforms/root/', import.meta.url));
// A generous time limit: this is about logging, and the machine running the tests may be busy.
const LIMITS = { timeoutMs: 10000, workers: 1 };
const LOGGING = { id: 'noisy', match: { path: 'noisy' }, action: 'wake', transform: { module: 'outcomes.js', export: 'logs' }, textTemplate: 'ok' };

describe("transforms' console output in the service log", () => {
  let svc: TestService;
  afterEach(async () => {
    await svc.close();
  });

  it('stays out of the log by default: one transform.console.off line names the module and the setting', async () => {
    svc = await startTestService({ hooks: { transformsDir: FIXTURES, transformLimits: LIMITS, mappings: [LOGGING] } });
    expect((await post(`${svc.hooksUrl}/noisy`, { lines: 2, width: 37 })).status).toBe(200);
    expect((await post(`${svc.hooksUrl}/noisy`, { lines: 2, width: 37 })).status).toBe(200);
    expect(svc.logs.filter((line) => line['event'] === 'transform.console')).toEqual([]);
    expect(svc.logs.filter((line) => line['event'] === 'transform.console.off')).toHaveLength(1);
    expect(svc.rawLogs()).not.toContain('x'.repeat(37));
  });

  it('is logged as transform.console lines when hooks.transformLimits.console is on', async () => {
    svc = await startTestService({ hooks: { transformsDir: FIXTURES, transformLimits: { ...LIMITS, console: true }, mappings: [LOGGING] } });
    expect((await post(`${svc.hooksUrl}/noisy`, { lines: 2, width: 37 })).status).toBe(200);
    const lines = svc.logs.filter((line) => line['event'] === 'transform.console');
    expect(lines.map((line) => line['line'])).toEqual([`line 0 ${'x'.repeat(37)}`, `line 1 ${'x'.repeat(37)}`]);
    expect(lines[0]).toMatchObject({ module: 'outcomes.js#logs' });
  });
});
