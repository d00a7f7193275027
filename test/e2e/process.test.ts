import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_START_MS, spawnServer, type ServerProcess } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

describe('the hookgate serve process', () => {
  let dir: string;
  let server: ServerProcess | undefined;
  afterEach(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.kill('SIGKILL');
      await server.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves, then on SIGTERM finishes, closes the store and exits 0', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-proc-'));
    const config = join(dir, 'hookgate.json5');
    writeFileSync(config, `{ gateway: { port: 0 }, hooks: { enabled: true, token: "\${TOKEN}" }, storage: { path: "store.sqlite" } }`);
    server = await spawnServer(config, { TOKEN: 'proc-token-1' });
    const response = await fetch(`${server.url}/hooks/wake`, {
      method: 'POST',
      headers: { authorization: 'Bearer proc-token-1', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'from a process' }),
    });
    expect(response.status).toBe(200);
    server.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const db = new DatabaseSync(join(dir, 'store.sqlite'));
    expect(db.prepare('SELECT text FROM events').all()).toEqual([{ text: 'from a process' }]);
    db.close();
    expect(server.lines.join('\n')).not.toContain('proc-token-1');
  });

  it('refuses to start on a bad config and exits 1 before listening', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-proc-'));
    const config = join(dir, 'hookgate.json5');
    writeFileSync(config, `{ hooks: { enabled: true } }`);
    await expect(spawnServer(config)).rejects.toThrow(/exited with 1.*hooks\/token/s);
  });

  it('picks up an edited mapping on SIGHUP (file watching off)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-proc-'));
    const config = join(dir, 'hookgate.json5');
    const write = (template: string) =>
      writeFileSync(
        config,
        `{ gateway: { port: 0 }, hooks: { enabled: true, token: "hup-token", mappings: [{ match: { path: "s" }, action: "wake", textTemplate: "${template}" }] }, storage: { path: "store.sqlite" } }`,
      );
    write('first {{v}}');
    server = await spawnServer(config, {}, SERVER_START_MS, ['--no-watch']);
    write('second {{v}}');
    server.kill('SIGHUP');
    const lines = server.lines;
    await until(() => lines.some((line) => line.includes('"config.reloaded"')));
    const response = await fetch(`${server.url}/hooks/s`, {
      method: 'POST',
      headers: { authorization: 'Bearer hup-token', 'content-type': 'application/json' },
      body: JSON.stringify({ v: 1 }),
    });
    expect(response.status).toBe(200);
    server.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    const db = new DatabaseSync(join(dir, 'store.sqlite'));
    const row = db.prepare("SELECT text FROM events WHERE hook = 's'").get() as { text: string };
    db.close();
    expect(row.text).toContain('second 1');
  });

  it('refuses to start with a clear message when a mapping does not compile', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-proc-'));
    const config = join(dir, 'hookgate.json5');
    writeFileSync(config, `{ hooks: { enabled: true, token: "t", mappings: [{ match: { path: "x" }, messageTemplate: "{{#if}}" }] }, gateway: { port: 0 } }`);
    await expect(spawnServer(config)).rejects.toThrow(/exited with 1.*\/hooks\/mappings\/0\/messageTemplate/s);
  });

  it('says the port is taken instead of printing a stack trace', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-proc-'));
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const config = join(dir, 'hookgate.json5');
    writeFileSync(config, `{ hooks: { enabled: true, token: "t" }, gateway: { port: ${port} }, storage: { path: "s.sqlite" } }`);
    try {
      await expect(spawnServer(config)).rejects.toThrow(/exited with 1.*already in use/s);
    } finally {
      blocker.close();
    }
  });
});
