import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { ServerProcess } from './process.js';

/**
 * Called in a describe block: each test gets a fresh folder (`newDir`) and hands over the servers it
 * starts (`track`); after each test they are killed (SIGKILL, waited for) and the folder removed.
 */
export function scratchServers(prefix: string): { newDir(): string; track(server: ServerProcess): ServerProcess } {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      if (server.child.exitCode === null && server.child.signalCode === null) server.kill('SIGKILL');
      await server.exited;
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    newDir() {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    track(server) {
      servers.push(server);
      return server;
    },
  };
}
