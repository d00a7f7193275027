import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createActionBuilder } from '../../src/actions/build.js';
import { createModelPolicy } from '../../src/actions/models.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { silentLogger } from '../../src/log.js';
import { createLiveEngine, type LiveEngine } from '../../src/mapping/live-engine.js';
import { isAlive } from '../sandbox/helpers.js';
import { until } from '../helpers/wait.js';
import { sandboxWorkerPids } from '../helpers/sandbox-pids.js';

const REQUEST = { name: 't', payload: {}, headers: {}, query: {} };

describe('the live engine on reload', () => {
  let dir: string;
  let live: LiveEngine | undefined;
  let stopped: number[] = [];
  afterEach(async () => {
    for (const pid of stopped) if (isAlive(pid)) process.kill(pid, 'SIGCONT');
    await live?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const hooksFor = () =>
    resolveConfig(
      {
        hooks: {
          enabled: true,
          token: 'hook-token-0123456789',
          transformsDir: dir,
          // Long enough that no deadline passes while the test holds the old worker stopped.
          transformLimits: { workers: 1, timeoutMs: 30_000 },
          mappings: [{ id: 't', match: { path: 't' }, action: 'wake', allowUnsafeExternalContent: true, transform: { module: 't.js' } }],
        },
      },
      { configDir: dir },
    ).hooks;
  const textOf = (outcome: unknown): string => (outcome as { actions: Array<{ text: string }> }).actions[0]!.text;

  it('answers requests that started on the old engine from the old code, while new requests get the new code', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-live-'));
    writeFileSync(join(dir, 't.js'), "export default () => ({ text: 'v1' });\n");
    live = await createLiveEngine(hooksFor(), createActionBuilder({ models: createModelPolicy({ model: 'echo/echo', timeoutSeconds: 600, maxConcurrent: 1, heartbeat: { every: '30m', ackMaxChars: 300, promptBudgetChars: 16000 } }) }), silentLogger());
    // A stopped worker is a transform that is still running: its calls stay in flight until SIGCONT.
    stopped = sandboxWorkerPids();
    expect(stopped).toHaveLength(1);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    const old = live.current()!;
    const inFlight = [old.resolve(REQUEST), old.resolve(REQUEST)];

    writeFileSync(join(dir, 't.js'), "export default () => ({ text: 'v2' });\n");
    await live.reload(hooksFor());
    expect(textOf(await live.current()!.resolve(REQUEST))).toBe('v2');
    for (const pid of stopped) expect(isAlive(pid), 'the old worker was killed under its calls').toBe(true);

    for (const pid of stopped) process.kill(pid, 'SIGCONT');
    expect((await Promise.all(inFlight)).map(textOf)).toEqual(['v1', 'v1']);
    // Drained: the old pool exits once its calls are answered.
    await until(() => stopped.every((pid) => !isAlive(pid)), 15_000);
    expect(textOf(await live.current()!.resolve(REQUEST))).toBe('v2');
  });
});
