import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBin, runCaptured } from '../helpers/cli.js';
import { SERVER_START_MS, spawnServer, type ServerProcess } from '../helpers/process.js';

let dir: string;
let blocker: Server | undefined;
let server: ServerProcess | undefined;

function writeConfig(gateway: string): string {
  const path = join(dir, 'hookgate.json5');
  writeFileSync(path, `{ gateway: ${gateway}, storage: { path: ${JSON.stringify(join(dir, 'store.sqlite'))} } }`);
  return path;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-serve-cli-'));
});

afterEach(async () => {
  if (server !== undefined) {
    server.kill('SIGKILL');
    await server.exited;
    server = undefined;
  }
  await new Promise<void>((resolve) => (blocker === undefined ? resolve() : blocker.close(() => resolve())));
  blocker = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('hookgate serve --port', { timeout: 90_000 }, () => {
  it.each(['abc', '0', '65536', '80x', '-1', ''])('refuses --port %j: it wants a number from 1 to 65535 (exit 2)', async (value) => {
    const result = await runCaptured(['serve', `--port=${value}`, '--config', writeConfig('{ port: 0 }')], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`hookgate serve: --port wants a port number from 1 to 65535, not ${JSON.stringify(value)}`);
    expect(result.stderr).not.toContain('NaN');
  });

  it('says a taken port is in use and names --port, in one line, exit 1', async () => {
    const taken = createServer();
    blocker = taken;
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const result = await runBin(['serve', '--config', writeConfig('{ bind: "127.0.0.1", port: 0 }'), '--port', String(address.port)]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `hookgate: cannot listen on 127.0.0.1:${address.port}: the port is already in use (another hookgate?); choose another with --port N or gateway.port`,
    );
  });
});

describe('hookgate serve --host', { timeout: 90_000 }, () => {
  it('listens on --host instead of gateway.bind', async () => {
    server = await spawnServer(writeConfig('{ bind: "localhost", port: 0 }'), {}, SERVER_START_MS, ['--host', '127.0.0.1']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
  });

  it('says an address this machine does not have is unavailable and names --host', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a local interface.
    const result = await runBin(['serve', '--config', writeConfig('{ port: 0 }'), '--host', '192.0.2.1']);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'hookgate: cannot listen on 192.0.2.1:0: no such address on this machine; choose another with --host ADDRESS or gateway.bind',
    ]);
  });
});
