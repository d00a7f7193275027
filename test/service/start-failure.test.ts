import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import type { ResolvedConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { startService } from '../../src/service.js';
import { openFilesIn } from '../helpers/open-files.js';
import { sandboxWorkerPids } from '../helpers/sandbox-pids.js';

const TRANSFORMS = fileURLToPath(new URL('../fixtures/transforms/root', import.meta.url));

describe('startService after a later step throws', () => {
  let dir = '';
  afterEach(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  /** A valid config, loaded as production loads it; `spoil` then breaks one part the loader already checked. */
  function config(spoil: (config: ResolvedConfig) => ResolvedConfig): ResolvedConfig {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-start-'));
    const raw = {
      gateway: { bind: '127.0.0.1', port: 0 },
      // A transform mapping, so that the engine starts a sandbox worker process before the runtime.
      hooks: { enabled: true, token: 'start-failure-token-0123456789', transformsDir: TRANSFORMS, mappings: [{ id: 'echo', match: { path: 'echo' }, transform: { module: 'echo.js' } }] },
      storage: { path: join(dir, 'hookgate.sqlite') },
    };
    return spoil(resolveConfig(raw, { configDir: dir }));
  }

  it.runIf(process.platform === 'linux')('a started service holds what the checks below look for, and close() releases it', async () => {
    const service = await startService({ config: config((resolved) => resolved), logger: silentLogger(), port: 0 });
    try {
      expect(openFilesIn(dir)).not.toEqual([]);
      expect(sandboxWorkerPids()).not.toEqual([]);
    } finally {
      await service.close();
    }
    expect(openFilesIn(dir)).toEqual([]);
    expect(sandboxWorkerPids()).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('a close() called while another is under way returns once everything is closed', async () => {
    const service = await startService({ config: config((resolved) => resolved), logger: silentLogger(), port: 0 });
    const first = service.close();
    await service.close();
    expect(openFilesIn(dir)).toEqual([]);
    expect(sandboxWorkerPids()).toEqual([]);
    await first;
  });

  it.runIf(process.platform === 'linux')('closes the store (database and writer thread) and stops the sandbox workers when the channels cannot be built', async () => {
    const broken = config((resolved) => ({ ...resolved, channels: { ...resolved.channels, telegram: { botToken: 42 } } as unknown as ResolvedConfig['channels'] }));
    await expect(startService({ config: broken, logger: silentLogger(), port: 0 })).rejects.toBeInstanceOf(ConfigError);
    expect(openFilesIn(dir)).toEqual([]);
    expect(sandboxWorkerPids()).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('closes the store and stops the sandbox workers when the runtime cannot be built', async () => {
    const broken = config((resolved) => ({
      ...resolved,
      agents: { ...resolved.agents, defaults: { ...resolved.agents.defaults, heartbeat: { ...resolved.agents.defaults.heartbeat, every: 'never' } } },
    }));
    await expect(startService({ config: broken, logger: silentLogger(), port: 0 })).rejects.toThrow(/heartbeat/);
    expect(openFilesIn(dir)).toEqual([]);
    expect(sandboxWorkerPids()).toEqual([]);
  });
});
