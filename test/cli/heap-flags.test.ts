import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript of the bin/ entry, without declarations
import { DEFAULT_SERVER_FLAGS, missingServerFlags } from '../../bin/heap-flags.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';

const missing = missingServerFlags as (execArgv: string[], env: NodeJS.ProcessEnv) => string[];

describe('the heap flags serve runs with', () => {
  it('are the defaults when nothing is given', () => {
    expect(missing([], {})).toEqual(DEFAULT_SERVER_FLAGS);
    expect(DEFAULT_SERVER_FLAGS).toEqual(['--max-semi-space-size=8', '--max-old-space-size=1024']);
  });

  it('are HOOKGATE_NODE_FLAGS instead when it is set, and none when it is empty', () => {
    expect(missing([], { HOOKGATE_NODE_FLAGS: '--max-old-space-size=2048  --optimize-for-size' })).toEqual(['--max-old-space-size=2048', '--optimize-for-size']);
    expect(missing([], { HOOKGATE_NODE_FLAGS: '' })).toEqual([]);
  });

  it('leave out a flag whose name the command line or NODE_OPTIONS already gives (theirs wins)', () => {
    expect(missing(['--max-old-space-size=300'], {})).toEqual(['--max-semi-space-size=8']);
    expect(missing([], { NODE_OPTIONS: '--max_semi_space_size=16 --enable-source-maps' })).toEqual(['--max-old-space-size=1024']);
    expect(missing(['--max-semi-space-size=1', '--max-old-space-size=300'], {})).toEqual([]);
  });
});

describe.skipIf(process.platform !== 'linux')('hookgate serve', { timeout: 90_000 }, () => {
  let dir: string;
  let server: ServerProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-heap-flags-'));
  });
  afterEach(async () => {
    server?.kill('SIGKILL');
    await server?.exited;
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  function config(): string {
    const path = join(dir, 'hookgate.json5');
    writeFileSync(path, `{ gateway: { bind: "127.0.0.1", port: 0 }, storage: { path: ${JSON.stringify(join(dir, 'store.sqlite'))} } }`);
    return path;
  }

  function commandLineOf(pid: number): string[] {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  }

  it('runs in the same process with the default heap flags', async () => {
    server = await spawnServer(config(), { HOOKGATE_NODE_FLAGS: undefined, NODE_OPTIONS: undefined });
    const args = commandLineOf(server.child.pid!);
    expect(args).toEqual(expect.arrayContaining(DEFAULT_SERVER_FLAGS));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('runs without them when HOOKGATE_NODE_FLAGS is empty', async () => {
    server = await spawnServer(config(), { HOOKGATE_NODE_FLAGS: '', NODE_OPTIONS: undefined });
    const args = commandLineOf(server.child.pid!);
    expect(args.filter((arg) => arg.startsWith('--max-'))).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
