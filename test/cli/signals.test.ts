import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, SERVER_START_MS } from '../helpers/process.js';

/**
 * SIGTERM to the wrapper a user started (`npm start`, which `./run.sh start` execs; `npx hookgate
 * serve`) must stop the server behind it, never leave it running with parent 1. npm passes the
 * signal to its child; `sh -c` (dash) does not pass it further, so `npm start` execs the server and
 * a server started by npm stops when its parent goes away (bin/parent-watch.js).
 */
const ROOT = join(BIN, '..', '..');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-signals-'));
  writeFileSync(join(dir, 'hookgate.json5'), `{ gateway: { port: 0 }, storage: { path: ${JSON.stringify(join(dir, 'data', 'store.sqlite'))} } }`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `npm <args>` in the repository and resolves with it once the server behind it listens. */
async function startThroughNpm(args: string[]) {
  const child = spawn('npm', args, { cwd: ROOT, env: { ...process.env, HOOKGATE_CONFIG: join(dir, 'hookgate.json5') }, stdio: ['ignore', 'pipe', 'pipe'] });
  const events: string[] = [];
  const closed = once(child.stdout, 'close'); // every process of the chain shares the pipe: closed when all ended
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start')), SERVER_START_MS);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as { event?: string; url?: string };
      events.push(parsed.event ?? '');
      if (parsed.event === 'server.listening' && parsed.url !== undefined) {
        clearTimeout(timer);
        resolve(parsed.url);
      }
    });
  });
  return { child, url, events, closed, exited };
}

function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('a stop signal sent to the wrapper reaches the server', { timeout: SERVER_START_MS + 30_000 }, () => {
  it('npm start (./run.sh start): SIGTERM stops the server gracefully and npm exits with its code, 0', async () => {
    const started = await startThroughNpm(['run', '--silent', 'start']);
    started.child.kill('SIGTERM');
    const [[code], ] = await Promise.all([started.exited, started.closed]);
    expect(code).toBe(0);
    expect(started.events).toContain('server.stopped');
    expect(await refusesConnections(started.url)).toBe(true);
  });

  it('npx hookgate serve: SIGTERM stops the server gracefully instead of orphaning it', async () => {
    const started = await startThroughNpm(['exec', '--', 'hookgate', 'serve']);
    started.child.kill('SIGTERM');
    await Promise.all([started.exited, started.closed]);
    expect(started.events).toContain('server.stopped');
    expect(await refusesConnections(started.url)).toBe(true);
  });
});
